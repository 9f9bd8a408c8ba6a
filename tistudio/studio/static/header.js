// header.js: the panel's title line: kernels, arch, notes, and a spinner while a compile
// takes longer than half a second. Plain ES module, no dependencies.

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function paint(bar, model) {
  bar.replaceChildren();
  bar.append(h("span", "ti-logo", "tistudio"));
  const kernels = model.get("kernels");
  if (kernels.length === 0) bar.append(h("span", "ti-muted", "no kernels yet"));
  for (const name of kernels) bar.append(h("span", "ti-chip", name));
  bar.append(h("span", "ti-muted", "on " + model.get("arch")));
  for (const note of model.get("notes")) bar.append(h("span", "ti-note", note));
  bar.append(h("span", "ti-spacer"));
  if (model.get("busy")) {
    const progress = h("span", "ti-progress");
    progress.dataset.passes = String(model.get("passes_done"));
    progress.append(h("span", "ti-spinner"), h("span", "", model.get("progress")));
    bar.append(progress);
  }
}

export default {
  render({ model, el }) {
    el.classList.add("tistudio", "tistudio-header");
    const bar = el.appendChild(h("div", "ti-bar"));
    const draw = () => paint(bar, model);
    const names = ["kernels", "arch", "notes", "busy", "progress"];
    for (const name of names) model.on("change:" + name, draw);
    draw();
    el.dataset.ready = "1";
    return () => names.forEach((name) => model.off("change:" + name, draw));
  },
};
