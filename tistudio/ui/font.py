"""Text for `ti.GUI.text`: strings rendered to coverage masks with matplotlib's FreeType.

Taichi draws text with stb_truetype and its bundled Go font; we use the DejaVu Sans font that
matplotlib (a dependency already) ships, rendered by matplotlib's FreeType binding, and lay the
string out as Taichi does: `font_size` is the pixel height from the font's ascent to its descent,
the text box hangs below the given point, and the first glyph starts 2 pixels to its right.
"""

from __future__ import annotations

import numpy as np

LEFT_PADDING = 2  # Taichi leaves 2 pixels before the first glyph


class TextRenderer:
    """Renders strings; owns its FreeType face (loaded on first use)."""

    def __init__(self, family: str = "DejaVu Sans") -> None:
        self.family = family
        self._face = None

    def _load(self):
        if self._face is None:
            from matplotlib import font_manager, ft2font

            self._face = ft2font.FT2Font(font_manager.findfont(self.family))
        return self._face

    def render(self, content: str, size: float) -> tuple[np.ndarray, int, int]:
        """(mask, left, top): the coverage mask (rows from the top, 0..1) of `content` at
        `size` pixels, and where its top-left cell goes relative to the text box's top-left
        corner (columns right, rows down)."""
        face = self._load()
        line_height = face.ascender - face.descender  # font units: Taichi's pixel height
        em_pixels = float(size) * face.units_per_EM / line_height
        face.set_size(em_pixels, 72)  # at 72 dpi a point is a pixel
        face.set_text(content, 0.0)
        face.draw_glyphs_to_bitmap(antialiased=True)
        mask = np.asarray(face.get_image(), dtype=np.float32) * np.float32(1 / 255)
        ascent = int(face.ascender * em_pixels / face.units_per_EM)  # baseline, from the top
        descent = int(np.ceil(face.get_descent() / 64))
        baseline_in_mask = mask.shape[0] - 1 - descent
        return mask, LEFT_PADDING, ascent - baseline_in_mask
