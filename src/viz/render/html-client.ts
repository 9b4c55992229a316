/**
 * The browser side of the HTML heatmap, as plain JavaScript inlined into the page (no build step,
 * no CDN). It reads the JSON the page embeds (see `html.ts`) and draws each design on a canvas:
 * metric and scale switch, drag-to-zoom (double-click or Reset to undo), hover tooltip.
 */
import { HATCH_SPACING } from "./layout.js";

export const HEATMAP_CLIENT_JS = String.raw`
"use strict";
(function () {
  var DATA = JSON.parse(document.getElementById("heatmap-data").textContent);
  var MARGIN = { left: 150, right: 32, top: 8, bottom: 34 };
  var state = { metric: DATA.metric, scale: DATA.scale, zoom: null };
  var panels = [];
  var tooltip = document.getElementById("tooltip");

  function fmt(value, metric) {
    if (value === null || value === undefined) return "–";
    if (metric === "cpu") return Math.round(value * 100) + "%";
    var suffix = metric === "latency" ? " ms" : "";
    var abs = Math.abs(value);
    if (abs >= 1e9) return +(value / 1e9).toPrecision(3) + "G" + suffix;
    if (abs >= 1e6) return +(value / 1e6).toPrecision(3) + "M" + suffix;
    if (abs >= 1e3) return +(value / 1e3).toPrecision(3) + "k" + suffix;
    return +value.toPrecision(3) + suffix;
  }

  function timeText(time, s) {
    if (time.epoch) return new Date(s * 1000).toISOString().replace(".000Z", "Z");
    return "t=" + +(s - time.startS).toFixed(3) + " s";
  }

  function unit(scale, kind, value) {
    if (!(value > 0)) return 0;
    var low = kind === "log" ? scale.logLow : 0;
    if (scale.high <= low) return 1;
    var u = kind === "log"
      ? (Math.log(value) - Math.log(low)) / (Math.log(scale.high) - Math.log(low))
      : (value - low) / (scale.high - low);
    return Math.min(1, Math.max(0.04, u));
  }

  function view(design) {
    var z = state.zoom && state.zoom[design.name];
    var t = state.zoom && state.zoom.time;
    return {
      r0: z ? z.r0 : 0, r1: z ? z.r1 : design.rows.length,
      c0: t ? t.c0 : 0, c1: t ? t.c1 : design.time.columns,
    };
  }

  function cellAt(panel, x, y) {
    var p = panel.plot, v = view(panel.design);
    if (x < p.x || y < p.y || x >= p.x + p.w || y >= p.y + p.h) return null;
    var column = v.c0 + Math.floor(((x - p.x) * (v.c1 - v.c0)) / p.w);
    var row = v.r0 + Math.floor(((y - p.y) * (v.r1 - v.r0)) / p.h);
    if (column >= panel.design.time.columns || row >= panel.design.rows.length) return null;
    return { row: row, column: column };
  }

  function draw(panel) {
    var design = panel.design, canvas = panel.canvas, ctx = canvas.getContext("2d");
    var p = panel.plot, v = view(design), columns = design.time.columns;
    var values = design.values[state.metric];
    var scale = DATA.scales[state.metric];
    ctx.fillStyle = "#18181c";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    var image = ctx.createImageData(p.w, p.h);
    var rowOf = new Int32Array(p.h), colOf = new Int32Array(p.w);
    for (var y = 0; y < p.h; y++) rowOf[y] = v.r0 + Math.floor((y * (v.r1 - v.r0)) / p.h);
    for (var x = 0; x < p.w; x++) colOf[x] = v.c0 + Math.floor((x * (v.c1 - v.c0)) / p.w);
    for (y = 0; y < p.h; y++) {
      for (x = 0; x < p.w; x++) {
        var cell = rowOf[y] * columns + colOf[x];
        var offset = (y * p.w + x) * 4;
        if (design.hot[cell] === "1" && (x + y) % ${HATCH_SPACING} === 0) {
          image.data[offset] = 0; image.data[offset + 1] = 230; image.data[offset + 2] = 255;
        } else {
          var color = DATA.palette[Math.round(unit(scale, state.scale, values ? values[cell] : 0) * 100)];
          image.data[offset] = color[0]; image.data[offset + 1] = color[1]; image.data[offset + 2] = color[2];
        }
        image.data[offset + 3] = 255;
      }
    }
    ctx.putImageData(image, p.x, p.y);
    ctx.fillStyle = "#dcdce1";
    ctx.font = "11px monospace";
    ctx.textAlign = "right";
    var lastY = -1e9;
    for (var r = v.r0; r < v.r1; r++) {
      var label = design.rows[r].labels.length ? design.rows[r].labels.filter(Boolean).join("/") : design.rows[r].start;
      var previous = r > v.r0 ? (design.rows[r - 1].labels.length ? design.rows[r - 1].labels.filter(Boolean).join("/") : design.rows[r - 1].start) : null;
      var at = p.y + Math.round(((r - v.r0) * p.h) / (v.r1 - v.r0));
      if (label === "" || label === previous || at - lastY < 12) continue;
      lastY = at;
      ctx.fillText(label.length > 22 ? label.slice(0, 21) + "~" : label, p.x - 6, at + 9);
    }
    ctx.textAlign = "center";
    for (var i = 0; i <= 5; i++) {
      var c = v.c0 + ((v.c1 - v.c0) * i) / 5;
      var s = design.time.startS + c * design.time.columnS;
      var text = design.time.epoch ? new Date(s * 1000).toISOString().slice(11, 19) : +(s - design.time.startS).toFixed(1) + "s";
      ctx.fillText(text, p.x + (p.w * i) / 5, p.y + p.h + 16);
    }
    if (panel.drag) {
      ctx.strokeStyle = "#00e6ff";
      ctx.strokeRect(Math.min(panel.drag.x0, panel.drag.x1), Math.min(panel.drag.y0, panel.drag.y1),
        Math.abs(panel.drag.x1 - panel.drag.x0), Math.abs(panel.drag.y1 - panel.drag.y0));
    }
  }

  function drawAll() {
    panels.forEach(draw);
    var scale = DATA.scales[state.metric];
    document.getElementById("legend").textContent =
      DATA.units[state.metric] + ": black 0 → white " + (scale.clipped ? "≥ " : "") + fmt(scale.high, state.metric) +
      " (" + state.scale + " scale, same for every design)" + (DATA.anyHot ? " · cyan hatch: node CPU ≥ 90 %" : "");
  }

  function showTooltip(panel, event) {
    var rect = panel.canvas.getBoundingClientRect();
    var hit = cellAt(panel, event.clientX - rect.left, event.clientY - rect.top);
    if (!hit) { tooltip.hidden = true; return; }
    var design = panel.design, row = design.rows[hit.row], time = design.time;
    var cell = hit.row * time.columns + hit.column;
    var from = time.startS + hit.column * time.columnS;
    var lines = [
      design.name,
      "keys [" + (row.start || "start of table") + ", " + (row.end === null ? "end of table" : row.end) + ")",
      row.labels.length ? "prefix " + row.labels.filter(Boolean).join(" / ") : "",
      timeText(time, from) + " – " + timeText(time, from + time.columnS),
    ];
    DATA.metrics.forEach(function (metric) {
      if (design.values[metric]) lines.push((metric === state.metric ? "▶ " : "  ") + metric + ": " + fmt(design.values[metric][cell], metric) + " " + DATA.units[metric]);
    });
    if (design.hot[cell] === "1") lines.push("node CPU ≥ 90 %");
    tooltip.textContent = lines.filter(Boolean).join("\n");
    tooltip.hidden = false;
    tooltip.style.left = Math.min(window.innerWidth - 380, event.pageX + 14) + "px";
    tooltip.style.top = event.pageY + 14 + "px";
  }

  function zoomTo(panel, drag) {
    var a = cellAt(panel, Math.min(drag.x0, drag.x1), Math.min(drag.y0, drag.y1));
    var b = cellAt(panel, Math.max(drag.x0, drag.x1) - 1, Math.max(drag.y0, drag.y1) - 1);
    if (!a || !b) return;
    state.zoom = state.zoom || {};
    state.zoom.time = { c0: a.column, c1: b.column + 1 };
    state.zoom[panel.design.name] = { r0: a.row, r1: b.row + 1 };
  }

  DATA.designs.forEach(function (design) {
    var section = document.createElement("section");
    var heading = document.createElement("h2");
    heading.textContent = design.name;
    var canvas = document.createElement("canvas");
    var list = document.createElement("ul");
    design.patterns.forEach(function (pattern) {
      var item = document.createElement("li");
      item.textContent = pattern.summary;
      item.title = pattern.rule;
      list.appendChild(item);
    });
    section.append(heading, canvas, list);
    document.getElementById("designs").appendChild(section);
    var panel = { design: design, canvas: canvas, section: section, drag: null, plot: null };
    canvas.dataset.design = design.name;
    canvas.addEventListener("mousemove", function (event) {
      if (panel.drag) {
        var rect = canvas.getBoundingClientRect();
        panel.drag.x1 = event.clientX - rect.left; panel.drag.y1 = event.clientY - rect.top;
        draw(panel);
      }
      showTooltip(panel, event);
    });
    canvas.addEventListener("mouseleave", function () { tooltip.hidden = true; });
    canvas.addEventListener("mousedown", function (event) {
      var rect = canvas.getBoundingClientRect();
      var x = event.clientX - rect.left, y = event.clientY - rect.top;
      panel.drag = { x0: x, y0: y, x1: x, y1: y };
    });
    window.addEventListener("mouseup", function () {
      if (!panel.drag) return;
      var drag = panel.drag;
      panel.drag = null;
      if (Math.abs(drag.x1 - drag.x0) > 4 && Math.abs(drag.y1 - drag.y0) > 4) zoomTo(panel, drag);
      drawAll();
    });
    canvas.addEventListener("dblclick", function () { state.zoom = null; drawAll(); });
    panels.push(panel);
  });

  // Sized once every panel is placed: the flex layout shares the width between them.
  panels.forEach(function (panel) {
    var width = Math.max(420, panel.section.clientWidth);
    panel.canvas.width = width;
    panel.canvas.height = DATA.height;
    panel.plot = { x: MARGIN.left, y: MARGIN.top, w: width - MARGIN.left - MARGIN.right, h: DATA.height - MARGIN.top - MARGIN.bottom };
    var dataset = panel.canvas.dataset;
    dataset.plotLeft = panel.plot.x; dataset.plotTop = panel.plot.y;
    dataset.plotWidth = panel.plot.w; dataset.plotHeight = panel.plot.h;
  });

  var metricSelect = document.getElementById("metric");
  DATA.metrics.forEach(function (metric) {
    var option = document.createElement("option");
    option.value = metric;
    option.textContent = metric + " (" + DATA.units[metric] + ")";
    metricSelect.appendChild(option);
  });
  metricSelect.value = state.metric;
  metricSelect.addEventListener("change", function () {
    state.metric = metricSelect.value;
    state.scale = state.metric === "cpu" ? "linear" : document.getElementById("scale").value;
    drawAll();
  });
  var scaleSelect = document.getElementById("scale");
  scaleSelect.value = state.scale;
  scaleSelect.addEventListener("change", function () { state.scale = scaleSelect.value; drawAll(); });
  document.getElementById("reset").addEventListener("click", function () { state.zoom = null; drawAll(); });
  drawAll();
})();
`;
