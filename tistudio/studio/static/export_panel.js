// export_panel.js: choose kernels, fields and arch, press Export; Python writes the .tcm in a
// worker thread and sends back the file list, the size and the bytes for a download link.
// Plain ES module, no dependencies.

function h(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function size(n) {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(2)} MiB`;
}

function checkboxes(form, legend, names, cls) {
  const set = form.appendChild(h("fieldset"));
  set.append(h("legend", "", legend));
  if (names.length === 0) set.append(h("span", "ti-muted", "none"));
  for (const name of names) {
    const label = set.appendChild(h("label"));
    const box = label.appendChild(h("input", cls));
    box.type = "checkbox";
    box.checked = true;
    box.value = name;
    label.append(" " + name);
  }
  return set;
}

function paintForm(form, model) {
  form.replaceChildren();
  const enabled = model.get("available");
  checkboxes(form, "kernels", model.get("kernel_names"), "ti-kernel");
  checkboxes(form, "fields", model.get("field_names"), "ti-field");
  const target = form.appendChild(h("fieldset"));
  target.append(h("legend", "", "target"));
  const arch = target.appendChild(h("select", "ti-arch"));
  for (const a of model.get("arches")) arch.appendChild(h("option", "", a)).value = a;
  arch.value = model.get("arch");
  target.append(" ");
  const path = target.appendChild(h("input", "ti-path"));
  path.type = "text";
  path.value = model.get("path");
  path.size = 28;
  target.append(" ");
  const button = target.appendChild(h("button", "ti-primary ti-export-button", "Export .tcm"));
  button.disabled = !enabled || model.get("status") === "running";
  for (const input of form.querySelectorAll("input, select")) input.disabled = !enabled;
  button.onclick = () => {
    const picked = (cls) => [...form.querySelectorAll(`input.${cls}:checked`)].map((b) => b.value);
    model.send({ type: "export", kernels: picked("ti-kernel"), fields: picked("ti-field"), arch: arch.value, path: path.value });
    button.disabled = true;
  };
}

function paintResult(status, files, model, urls) {
  const state = model.get("available") ? model.get("status") : "unavailable";
  status.dataset.status = state;
  status.replaceChildren();
  files.replaceChildren();
  const text = { idle: "Choose what goes into the module and press Export.", running: "Exporting… " };
  status.append(h("span", "ti-message", (text[state] || "") + model.get("message")));
  if (state !== "done") return;
  const list = model.get("files");
  for (const f of list) {
    const tr = files.appendChild(h("tr", "ti-file"));
    tr.append(h("td", "", f.name), h("td", "num", size(f.size)));
  }
  status.append(h("span", "ti-muted", ` · ${list.length} file(s), ${size(model.get("size"))} `));
  const data = model.get("archive");
  if (data && data.byteLength) {
    urls.forEach((u) => URL.revokeObjectURL(u));
    urls.length = 0;
    const url = URL.createObjectURL(new Blob([data], { type: "application/zip" }));
    urls.push(url);
    const link = status.appendChild(h("a", "ti-download", "download"));
    link.href = url;
    link.download = model.get("message").split("/").pop();
  }
  if (model.get("dask_code")) {
    status.append(h("pre", "ti-dask", "# sweep it on a Dask cluster:\n" + model.get("dask_code")));
  }
}

export default {
  render({ model, el }) {
    el.classList.add("tistudio", "tistudio-export");
    const bar = el.appendChild(h("div", "ti-bar"));
    bar.append(h("span", "ti-title", "Export AOT module"), h("span", "ti-muted", "kernels and fields → .tcm"));
    const form = el.appendChild(h("div", "ti-form"));
    const status = el.appendChild(h("div", "ti-status"));
    const files = el.appendChild(h("table", "ti-files"));
    const urls = [];
    const drawForm = () => paintForm(form, model);
    const drawResult = () => {
      paintResult(status, files, model, urls);
      const button = form.querySelector(".ti-export-button");
      if (button) button.disabled = !model.get("available") || model.get("status") === "running";
    };
    const formTraits = ["kernel_names", "field_names", "available"];
    const resultTraits = ["status", "message", "files", "archive"];
    formTraits.forEach((n) => model.on("change:" + n, drawForm));
    resultTraits.forEach((n) => model.on("change:" + n, drawResult));
    drawForm();
    drawResult();
    el.dataset.ready = "1";
    return () => {
      formTraits.forEach((n) => model.off("change:" + n, drawForm));
      resultTraits.forEach((n) => model.off("change:" + n, drawResult));
      urls.forEach((u) => URL.revokeObjectURL(u));
    };
  },
};
