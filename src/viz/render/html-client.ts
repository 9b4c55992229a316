/**
 * The browser side of the HTML heatmap, as plain JavaScript inlined into the page (no build step,
 * no CDN). It inflates the JSON the page embeds (see `html.ts`) and draws each design on a canvas:
 * colour bar, metric and scale switch, drag-to-zoom (double-click or Reset to undo), hover tooltip,
 * node-CPU lanes. Number formats, colour positions, bar ticks, time ticks and lanes are the very
 * functions the PNG and SVG use, inlined from their source, so page and images cannot disagree.
 */

import { timeLabel, timeTicks } from "../matrix/time-axis.js";
import { formatValue, scaleTicks, scaleUnit } from "./color-scale.js";
import { laneColor, saturationLanes } from "./saturation-lanes.js";

const SHARED = [formatValue, scaleUnit, scaleTicks, timeLabel, timeTicks, saturationLanes, laneColor]
  .map((fn) => fn.toString())
  .join("\n");

export const HEATMAP_CLIENT_JS = String.raw`
"use strict";
(function () {
  ${SHARED}

  // The page carries its data deflated and base64-encoded (a tenth of the JSON's size); the browser inflates it.
  function readData() {
    var text = document.getElementById("heatmap-data").textContent.trim();
    var bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) : bytesOf(atob(text));
    var json = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Response(json).json();
  }

  // For browsers without Uint8Array.fromBase64 (a character per byte, copied one by one).
  function bytesOf(binary) {
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  readData().then(show).catch(function (error) {
    document.getElementById("designs").textContent = "The heatmap could not be shown: " + error.message;
    console.error(error);
  });

  /** Builds every panel and draws it, in one go once the data is read. */
  function show(DATA) {
    var LANE = { gap: 3, size: 8 };
    var anyCpu = DATA.designs.some(function (design) { return design.hot !== null; });
    var lanes = anyCpu ? LANE.gap + LANE.size : 0;
    // Rows named through a schema read longer than prefix labels: room for up to 36 characters.
    var named = DATA.designs.some(function (design) { return design.rows.some(function (row) { return row.name !== undefined; }); });
    var LABEL_CHARS = named ? 36 : 20;
    var MARGIN = { left: named ? 250 : 150, right: 32 + lanes, top: 8, bottom: 34 + lanes };
    var state = { metric: DATA.metric, scale: DATA.scale, zoom: null };
    var panels = [];
    var tooltip = document.getElementById("tooltip");

    function fmt(value, metric) {
      return value === null || value === undefined ? "–" : formatValue(value, metric);
    }

    function currentScale() {
      return DATA.scales[state.metric][state.metric === "cpu" ? "linear" : state.scale];
    }

    function timeText(time, s) {
      if (time.epoch) return new Date(s * 1000).toISOString().replace(".000Z", "Z");
      return "t=" + timeLabel(s - time.startS, false, time.columns * time.columnS);
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

    function rowLabel(design, r) {
      var row = design.rows[r];
      if (row.name !== undefined) return row.name;
      return row.labels.length ? row.labels.filter(Boolean).join(design.labelSeparator) : row.start;
    }

    function drawLanes(panel, ctx, v) {
      var design = panel.design, p = panel.plot;
      if (design.hot === null) return;
      var keyShares = design.rows.map(function (row) { return row.keyShare; });
      var shares = saturationLanes(design.hot, keyShares, design.time.columns, v);
      var rows = v.r1 - v.r0, columns = v.c1 - v.c0;
      shares.byRow.forEach(function (share, index) {
        var top = p.y + Math.round((index * p.h) / rows), bottom = p.y + Math.round(((index + 1) * p.h) / rows);
        ctx.fillStyle = "rgb(" + laneColor(share).join(",") + ")";
        ctx.fillRect(p.x + p.w + LANE.gap, top, LANE.size, Math.max(1, bottom - top));
      });
      shares.byColumn.forEach(function (share, index) {
        var left = p.x + Math.round((index * p.w) / columns), right = p.x + Math.round(((index + 1) * p.w) / columns);
        ctx.fillStyle = "rgb(" + laneColor(share).join(",") + ")";
        ctx.fillRect(left, p.y + p.h + LANE.gap, Math.max(1, right - left), LANE.size);
      });
    }

    function draw(panel) {
      var design = panel.design, canvas = panel.canvas, ctx = canvas.getContext("2d");
      var p = panel.plot, v = view(design), columns = design.time.columns;
      var values = design.values[state.metric];
      var scale = currentScale();
      ctx.fillStyle = "#18181c";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      var image = ctx.createImageData(p.w, p.h), pixels = image.data, line = p.w * 4;
      var rowOf = new Int32Array(p.h), colOf = new Int32Array(p.w);
      for (var y = 0; y < p.h; y++) rowOf[y] = v.r0 + Math.floor((y * (v.r1 - v.r0)) / p.h);
      for (var x = 0; x < p.w; x++) colOf[x] = v.c0 + Math.floor((x * (v.c1 - v.c0)) / p.w);
      // A cell spans whole pixel lines and runs of pixels: its colour is worked out once, and a
      // line showing the same row as the line above is a copy of it.
      for (y = 0; y < p.h; y++) {
        var offset = y * line;
        if (y > 0 && rowOf[y] === rowOf[y - 1]) {
          pixels.copyWithin(offset, offset - line, offset);
          continue;
        }
        var color = null;
        for (x = 0; x < p.w; x++, offset += 4) {
          if (x === 0 || colOf[x] !== colOf[x - 1]) {
            var cell = rowOf[y] * columns + colOf[x];
            color = DATA.palette[Math.round(scaleUnit(scale, values ? values[cell] : 0) * 100)];
          }
          pixels[offset] = color[0]; pixels[offset + 1] = color[1]; pixels[offset + 2] = color[2];
          pixels[offset + 3] = 255;
        }
      }
      ctx.putImageData(image, p.x, p.y);
      drawLanes(panel, ctx, v);
      ctx.fillStyle = "#dcdce1";
      ctx.font = "11px monospace";
      ctx.textAlign = "right";
      var lastY = -1e9, shown = [];
      for (var r = v.r0; r < v.r1; r++) {
        var label = rowLabel(design, r);
        var at = p.y + Math.round(((r - v.r0) * p.h) / (v.r1 - v.r0));
        if (label === "" || (r > v.r0 && label === rowLabel(design, r - 1)) || at - lastY < 12) continue;
        lastY = at;
        var text = label.length > LABEL_CHARS ? label.slice(0, LABEL_CHARS - 1) + "~" : label;
        ctx.fillText(text, p.x - 6, at + 9);
        shown.push([r, text]);
      }
      // The rows the axis names, and what it calls them (canvas text cannot be read back).
      canvas.dataset.rowLabels = JSON.stringify(shown);
      var time = design.time;
      var from = time.startS + v.c0 * time.columnS, span = (v.c1 - v.c0) * time.columnS;
      var axisY = p.y + p.h + lanes;
      ctx.textAlign = "center";
      ctx.fillStyle = "#787882";
      ctx.fillRect(p.x, axisY, p.w, 1);
      var ticks = timeTicks(time.epoch ? from : from - time.startS, span, time.epoch);
      canvas.dataset.timeTicks = ticks.map(function (tick) { return tick.label; }).join(" ");
      ticks.forEach(function (tick) {
        var tickX = p.x + Math.round((tick.offsetS / span) * p.w);
        ctx.fillStyle = "#787882";
        ctx.fillRect(tickX, axisY, 1, 5);
        ctx.fillStyle = "#dcdce1";
        ctx.fillText(tick.label, tickX, axisY + 17);
      });
      if (panel.drag) {
        ctx.strokeStyle = "#00e6ff";
        ctx.strokeRect(Math.min(panel.drag.x0, panel.drag.x1), Math.min(panel.drag.y0, panel.drag.y1),
          Math.abs(panel.drag.x1 - panel.drag.x0), Math.abs(panel.drag.y1 - panel.drag.y0));
      }
    }

    function drawColorbar() {
      var bar = document.getElementById("colorbar");
      var canvas = bar.querySelector("canvas"), ctx = canvas.getContext("2d");
      for (var x = 0; x < canvas.width; x++) {
        var color = DATA.palette[Math.round((x / (canvas.width - 1)) * 100)];
        ctx.fillStyle = "rgb(" + color.join(",") + ")";
        ctx.fillRect(x, 0, 1, canvas.height);
      }
      bar.querySelectorAll("span").forEach(function (span) { span.remove(); });
      var scale = currentScale();
      scaleTicks(scale, state.metric).forEach(function (tick) {
        var span = document.createElement("span");
        span.className = "tick";
        span.textContent = tick.label.replace(">=", "≥ ");
        span.style.left = Math.round(tick.unit * canvas.width) + "px";
        bar.appendChild(span);
      });
      document.getElementById("scale-note").textContent =
        DATA.units[state.metric] + ", " + (state.metric === "cpu" ? "linear" : state.scale) +
        " scale, the same for every design (black: none)";
      document.getElementById("lanes-note").hidden = !anyCpu;
    }

    function drawAll() {
      panels.forEach(draw);
      drawColorbar();
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
        row.name !== undefined ? "row " + row.name : "",
        "keys [" + (row.start || "start of table") + ", " + (row.end === null ? "end of table" : row.end) + ")",
        row.name === undefined && row.labels.length ? "prefix " + row.labels.filter(Boolean).join(design.labelSeparator) : "",
        timeText(time, from) + " – " + timeText(time, from + time.columnS),
      ];
      DATA.metrics.forEach(function (metric) {
        if (design.values[metric]) lines.push((metric === state.metric ? "▶ " : "  ") + metric + ": " + fmt(design.values[metric][cell], metric) + " " + DATA.units[metric]);
      });
      if (design.hot !== null && design.hot[cell] === "1") lines.push("node CPU ≥ 90 %");
      tooltip.textContent = lines.filter(Boolean).join("\n");
      tooltip.hidden = false;
      tooltip.style.left = Math.min(window.innerWidth - 540, event.pageX + 14) + "px";
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
      var notes = document.createElement("p");
      notes.className = "notes";
      notes.textContent = (design.notes || []).join(" · ");
      var canvas = document.createElement("canvas");
      canvas.className = "panel";
      var list = document.createElement("ul");
      design.patterns.forEach(function (pattern) {
        var item = document.createElement("li");
        item.textContent = pattern.summary;
        item.title = pattern.rule;
        list.appendChild(item);
      });
      section.append(heading, notes, canvas, list);
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
      dataset.rows = panel.design.rows.length;
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
      drawAll();
    });
    var scaleSelect = document.getElementById("scale");
    scaleSelect.value = state.scale;
    scaleSelect.addEventListener("change", function () { state.scale = scaleSelect.value; drawAll(); });
    document.getElementById("reset").addEventListener("click", function () { state.zoom = null; drawAll(); });
    drawAll();
  }
})();
`;
