/**
 * The CodeMirror 6 view plugin behind `%%ti_kernel` highlighting.
 *
 * Decorations (not a language swap) keep the Python tokens JupyterLab already colours; only
 * cells whose first line starts with `%%ti_kernel` are touched, and only the visible ranges are
 * scanned, so long cells stay cheap to edit.
 */
import { RangeSetBuilder } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  ViewPlugin,
  ViewUpdate
} from '@codemirror/view';

const MAGIC = '%%ti_kernel';
const magicLine = Decoration.line({ class: 'ti-magic-line' });
const builtin = Decoration.mark({ class: 'ti-builtin' });
const TI_NAME = /\bti\.[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*/g;

/** True when the document is a `%%ti_kernel` cell. */
export function isTiKernelCell(view: EditorView): boolean {
  const head = view.state.doc.sliceString(0, MAGIC.length + 1);
  return head === MAGIC || (head.startsWith(MAGIC) && /\s/.test(head[MAGIC.length]));
}

function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  if (!isTiKernelCell(view)) {
    return builder.finish();
  }
  const doc = view.state.doc;
  let magicDone = false;
  for (const { from, to } of view.visibleRanges) {
    for (let pos = from; pos <= to; ) {
      const line = doc.lineAt(pos);
      if (line.number === 1 && !magicDone) {
        builder.add(line.from, line.from, magicLine);
        magicDone = true;
      } else {
        TI_NAME.lastIndex = 0;
        for (let m = TI_NAME.exec(line.text); m; m = TI_NAME.exec(line.text)) {
          const start = line.from + m.index;
          builder.add(start, start + m[0].length, builtin);
        }
      }
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/** The extension: recomputes decorations when the text or the viewport changes. */
export function tiKernelHighlight() {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = decorate(view);
      }
      update(update: ViewUpdate) {
        if (update.docChanged || update.viewportChanged) {
          this.decorations = decorate(update.view);
        }
      }
    },
    { decorations: v => v.decorations }
  );
}
