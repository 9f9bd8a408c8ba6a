"""GGUI (`ti.ui`): Window, Canvas, Scene, Camera and the sub-window widgets, rendered with wgpu."""
