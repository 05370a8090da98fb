// Charts: each [data-chart] box holds a Vega-Lite spec (core/plots.py) as JSON. On a page that
// has one, this loads the vendored Vega bundles and draws each chart with vega-embed: values on
// the axes, tooltips, and a menu that saves the chart as PNG or SVG (no "open in editor" link to
// an outside site). Vega's expressions run in its interpreter (ast: true), so the page's
// Content-Security-Policy needs no 'unsafe-eval'; vega-embed's and vega-tooltip's styles come
// from a file (vega-embed.css), since the CSP refuses the inline <style> they would inject.
// The table of values beside each chart stays open for readers without JavaScript, and opens
// again if a chart cannot be drawn.
(function () {
  const boxes = Array.from(document.querySelectorAll("[data-chart]"));
  const script = document.currentScript;
  if (!boxes.length || !script) return;
  const vendor = script.dataset.vendor;
  const table = (box) => box.parentElement.querySelector(".chart-data");

  const THEME = {
    font: 'system-ui, -apple-system, "Segoe UI", sans-serif',
    background: "white",
    view: { stroke: null },
    title: { anchor: "start", fontSize: 13, fontWeight: 600, color: "#1d2430" },
    axis: {
      labelColor: "#5b6577", titleColor: "#1d2430", titleFontWeight: 600,
      gridColor: "#dde2ea", domainColor: "#5b6577", tickColor: "#5b6577",
      labelFontSize: 11, titleFontSize: 12,
    },
    legend: { labelColor: "#5b6577", titleColor: "#1d2430", labelFontSize: 11 },
  };

  const options = (box) => ({
    mode: "vega-lite",
    renderer: "svg",
    ast: true,
    actions: { export: { svg: true, png: true }, source: false, compiled: false, editor: false },
    defaultStyle: false,
    forceActionsMenu: true,
    tooltip: { disableDefaultStyle: true },
    downloadFileName: box.dataset.filename || "chart",
    scaleFactor: { png: 2 },
    config: THEME,
  });

  const load = (name) => new Promise((resolve, reject) => {
    const element = document.createElement("script");
    element.src = vendor + name;
    element.async = false; // run in the order given: vega-embed needs vega and vega-lite
    element.onload = resolve;
    element.onerror = () => reject(new Error("Could not load " + name));
    document.head.appendChild(element);
  });

  const failed = (box, error) => {
    box.dataset.rendered = "failed";
    const values = table(box);
    if (values) values.open = true;
    console.error(error);
  };

  const draw = (box) => {
    const target = document.createElement("div");
    target.className = "chart-view";
    box.appendChild(target);
    const spec = JSON.parse(box.querySelector('script[type="application/json"]').textContent);
    return window.vegaEmbed(target, spec, options(box)).then(
      () => { box.dataset.rendered = "true"; },
      (error) => failed(box, error),
    );
  };

  const style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = vendor + "vega-embed.css";
  document.head.appendChild(style);
  boxes.forEach((box) => { const values = table(box); if (values) values.open = false; });
  Promise.all(["vega.min.js", "vega-lite.min.js", "vega-embed.min.js"].map(load)).then(
    () => Promise.all(boxes.map(draw)),
    (error) => boxes.forEach((box) => failed(box, error)),
  );
})();
