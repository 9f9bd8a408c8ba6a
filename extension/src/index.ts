/**
 * tistudio's JupyterLab extension.
 *
 * `%%ti_kernel` cells are Python, so the cell keeps JupyterLab's Python highlighting and this
 * extension only adds CodeMirror 6 decorations on top: the magic line gets `ti-magic-line`, and
 * every `ti.<name>` gets `ti-builtin`, so the Taichi parts of a cell stand out from plain Python.
 * A command-palette entry inserts a template `%%ti_kernel` cell below the active one, and a
 * reopened notebook shows a studio panel's saved HTML where ipywidgets finds no model
 * (`fallback.ts`).
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import {
  EditorExtensionRegistry,
  IEditorExtensionRegistry
} from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { fallbackPlugin } from './fallback';
import { tiKernelHighlight } from './highlight';

export const INSERT_COMMAND = 'tistudio:insert-ti-kernel-cell';

/** The cell the palette command inserts: one field, one kernel, one call. */
export const TEMPLATE = `%%ti_kernel --show passes,cache,fields
x = ti.field(ti.f32, shape=(128, 128))

def fill(t: ti.f32):
    for i, j in x:
        x[i, j] = ti.sin(i * 0.1 + t) * ti.cos(j * 0.1)

fill(0.0)`;

const highlightPlugin: JupyterFrontEndPlugin<void> = {
  id: 'tistudio:highlight',
  description: 'Highlights %%ti_kernel cells (the magic line and ti.* names).',
  autoStart: true,
  requires: [IEditorExtensionRegistry],
  activate: (app: JupyterFrontEnd, extensions: IEditorExtensionRegistry) => {
    extensions.addExtension({
      name: 'tistudio:ti-kernel-highlight',
      default: true,
      factory: () =>
        EditorExtensionRegistry.createImmutableExtension(tiKernelHighlight())
    });
  }
};

const insertPlugin: JupyterFrontEndPlugin<void> = {
  id: 'tistudio:insert-cell',
  description: "Adds 'Insert %%ti_kernel cell' to the command palette.",
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null
  ) => {
    app.commands.addCommand(INSERT_COMMAND, {
      label: 'Insert %%ti_kernel cell',
      caption: 'Insert a template %%ti_kernel cell below the active cell',
      isEnabled: () => tracker.currentWidget !== null,
      execute: () => {
        const panel = tracker.currentWidget;
        if (!panel) {
          return;
        }
        const notebook = panel.content;
        NotebookActions.insertBelow(notebook);
        NotebookActions.changeCellType(notebook, 'code');
        notebook.activeCell?.model.sharedModel.setSource(TEMPLATE);
      }
    });
    palette?.addItem({ command: INSERT_COMMAND, category: 'tistudio' });
  }
};

export default [highlightPlugin, insertPlugin, fallbackPlugin];
