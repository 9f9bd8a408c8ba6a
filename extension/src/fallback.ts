/**
 * A reopened notebook shows a studio panel's saved HTML instead of ipywidgets' error box.
 *
 * tistudio's widgets put a whole mimebundle in the notebook: the widget view plus a readable
 * `text/html` (a `<div class="tistudio-static">`) and `text/plain`. JupyterLab always picks the
 * widget view, so when the notebook is reopened without the widgets' saved state (JupyterLab's
 * default: ipywidgets' "save widget state" is off) and with a fresh kernel, ipywidgets finds no
 * model and leaves "Error displaying widget: model not found" where the panel was, although the
 * fallback HTML is right there in the same output.
 *
 * ipywidgets registers its renderer per notebook once the kernel is known, removing every other
 * factory for the widget-view MIME type first, so a competing renderer factory would not survive.
 * Instead this plugin watches each notebook for ipywidgets' error box (the renderer adds the
 * `jupyter-widgets` class when it gives up, see `watch`) and, only when the same output carries tistudio's
 * fallback, renders that `text/html` in its place with the notebook's own HTML renderer (so the
 * notebook's trust and sanitising apply as for any other HTML output). Live widgets, other
 * libraries' widgets and every other error stay exactly as they are.
 */
import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import type { CodeCell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { MimeModel } from '@jupyterlab/rendermime';
import type { Panel, Widget } from '@lumino/widgets';

export const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';
/** What ipywidgets writes when the output's model is in neither the kernel nor saved state. */
export const MODEL_NOT_FOUND = 'Error displaying widget: model not found';
/** The marker of tistudio's fallback HTML (panel.py and field_view.py `static_html`). */
export const FALLBACK_MARKER = 'class="tistudio-static"';
/** Set on an output whose error box was replaced, so the tests (and CSS) can find it. */
export const FALLBACK_CLASS = 'tistudio-fallback';

/** The fallback HTML of an output bundle, or null when it is not tistudio's. */
export function tistudioFallback(data: Record<string, unknown>): string | null {
  if (!(WIDGET_VIEW in data)) {
    return null;
  }
  const raw = data['text/html'];
  const html = Array.isArray(raw) ? raw.join('') : raw;
  return typeof html === 'string' && html.includes(FALLBACK_MARKER) ? html : null;
}

function isModelNotFound(node: Element): boolean {
  return (
    node.classList.contains('jupyter-widgets') &&
    node.classList.contains('jp-OutputArea-output') &&
    (node.textContent ?? '').startsWith(MODEL_NOT_FOUND)
  );
}

/** The output renderer widget showing `node`, with its cell's output area and output index. */
function findOutput(
  panel: NotebookPanel,
  node: Element
): { renderer: Panel; cell: CodeCell; index: number } | null {
  for (const cell of panel.content.widgets) {
    if (cell.model.type !== 'code' || !cell.node.contains(node)) {
      continue;
    }
    const area = (cell as CodeCell).outputArea;
    const index = area.widgets.findIndex(child => child.node.contains(node));
    const child = area.widgets[index] as Panel | undefined;
    const renderer = child?.widgets?.find((w: Widget) => w.node === node);
    return renderer ? { renderer: renderer as Panel, cell: cell as CodeCell, index } : null;
  }
  return null;
}

/** Replaces ipywidgets' error box at `node` by the output's fallback HTML, if it has one. */
async function showFallback(panel: NotebookPanel, node: Element): Promise<void> {
  const found = findOutput(panel, node);
  if (!found || found.index >= found.cell.outputArea.model.length) {
    return;
  }
  const output = found.cell.outputArea.model.get(found.index);
  const html = tistudioFallback(output.data as Record<string, unknown>);
  if (html === null || typeof found.renderer.addWidget !== 'function') {
    return;
  }
  const fallback = panel.content.rendermime.createRenderer('text/html');
  await fallback.renderModel(
    new MimeModel({ data: { 'text/html': html }, trusted: output.trusted })
  );
  if (found.renderer.isDisposed || !isModelNotFound(found.renderer.node)) {
    fallback.dispose(); // the widget came back (or the output went) in the meantime
    return;
  }
  found.renderer.node.textContent = '';
  for (const old of [...found.renderer.widgets]) {
    // an earlier fallback, if ipywidgets cleared the node, rendered again and failed again
    // (its `_rerender`): put the node back so that the layout can detach it
    found.renderer.node.appendChild(old.node);
    old.dispose();
  }
  found.renderer.removeClass('jupyter-widgets');
  found.renderer.addClass(FALLBACK_CLASS);
  found.renderer.node.title =
    'Saved view of a tistudio panel: run the cell again for the live panel';
  found.renderer.addWidget(fallback);
}

const ERROR_BOXES = '.jp-OutputArea-output.jupyter-widgets';

/** The elements a mutation may have turned into (or brought in with) an error box. */
function touched(record: MutationRecord): Element[] {
  if (record.type === 'attributes') {
    return record.target instanceof Element ? [record.target] : [];
  }
  const found: Element[] = [];
  record.addedNodes.forEach(node => {
    if (node instanceof Element) {
      found.push(node, ...Array.from(node.querySelectorAll(ERROR_BOXES)));
    }
  });
  return found;
}

/**
 * Watches one notebook for ipywidgets' error box: it adds `jupyter-widgets` when it fails, and a
 * windowed notebook may attach a cell whose output failed while it was detached.
 */
function watch(panel: NotebookPanel): void {
  const scan = (nodes: Element[]) => {
    for (const node of nodes) {
      if (isModelNotFound(node)) {
        void showFallback(panel, node).catch(err =>
          console.error('tistudio: could not show the saved view', err)
        );
      }
    }
  };
  const observer = new MutationObserver(records =>
    scan(([] as Element[]).concat(...records.map(touched)))
  );
  observer.observe(panel.node, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['class']
  });
  panel.disposed.connect(() => observer.disconnect());
  scan(Array.from(panel.node.querySelectorAll(ERROR_BOXES)));
}

export const fallbackPlugin: JupyterFrontEndPlugin<void> = {
  id: 'tistudio:saved-view',
  description:
    "Shows a studio panel's saved HTML where ipywidgets cannot find its model (reopened notebooks).",
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app: JupyterFrontEnd, tracker: INotebookTracker) => {
    tracker.forEach(watch);
    tracker.widgetAdded.connect((_, panel) => watch(panel));
  }
};
