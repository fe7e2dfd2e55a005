// The HTML report's style sheet, inlined into every page (html.cc's PageHead): the page
// fetches nothing. Light and dark colours follow the reader's preference.
#pragma once

namespace faultline {

inline constexpr const char* kStyle = R"css(
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d2330; --muted: #5b6475; --line: #c9ced8;
  --panel: #f4f6f9; --region: #dbe8fb; --alias: #ece4fb; --periph: #eef0f3; --gap: #fafafa;
  --code: #4a7bd0; --data: #2f9a6a; --rodata: #7b8cab; --bss: #c99a2e; --bad: #d4301f; --ok: #2f8f4e;
  --warn: #b7791f; --load: #9aa3b2; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171d; --fg: #e4e8ef; --muted: #9aa3b2; --line: #3a414e; --panel: #1d222b;
    --region: #203450; --alias: #33284a; --periph: #272c35; --gap: #181b21; --code: #6f9df0;
    --data: #48c08a; --rodata: #8d9dbb; --bss: #e0b451; --bad: #ff6b5a; --ok: #5cc97f; --warn: #e8a94a;
    --load: #6b7383; }
}
@media print { :root { color-scheme: light; --bg: #fff; --fg: #000; --panel: #fff; }
  section, figure, tr { break-inside: avoid; } details { display: block; } details > * { display: block; }
  #memory-map { max-width: 100%; height: auto; } }
*, *::before, *::after { box-sizing: border-box; }
body { background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  margin: 0 auto; padding: 1.2em 1.5em 3em; max-width: 1100px; }
h1 { font-size: 1.45em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.6em 0 .5em;
  border-bottom: 1px solid var(--line); padding-bottom: .2em; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .7em .9em;
  overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; margin: .4em 0; }
th, td { text-align: left; padding: .25em .6em; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.meta { color: var(--muted); }
.badge { display: inline-block; border-radius: 4px; padding: .05em .55em; font-weight: 600; color: #fff; }
.badge.exit-ok, .badge.pass { background: var(--ok); } .badge.fail, .badge.fault, .badge.lockup,
.badge.unsupported { background: var(--bad); } .badge.hang, .badge.limit, .badge.exit-nonzero { background: var(--warn); }
.error { color: var(--bad); font-weight: 600; } .warning { color: var(--warn); font-weight: 600; }
.note { color: var(--muted); font-weight: 600; }
.diag { margin: .5em 0 .9em; } .diag .fix { margin-left: 1.2em; } .diag .fix::before { content: "fix: "; font-weight: 600; }
.missing-copy { color: var(--bad); font-weight: 600; }
figure { margin: 0; overflow-x: auto; }
.legend span { margin-right: 1.1em; white-space: nowrap; }
.swatch { display: inline-block; width: .9em; height: .9em; vertical-align: -.1em; margin-right: .3em;
  border: 1px solid var(--line); }
#memory-map { font: 11px ui-monospace, "DejaVu Sans Mono", monospace; max-width: 100%; height: auto; }
#memory-map .region { fill: var(--region); stroke: var(--line); }
#memory-map .alias { fill: var(--alias); stroke: var(--line); }
#memory-map .peripheral { fill: var(--periph); stroke: var(--line); }
#memory-map .gate-closed { fill: url(#hatch); stroke: var(--bad); stroke-width: 1.5; }
#memory-map .gate-open { stroke: var(--ok); stroke-width: 1.5; }
#memory-map .hatch-bg { fill: var(--periph); } #memory-map .hatch-line { stroke: var(--bad); stroke-width: 2; opacity: .35; }
#memory-map .gap { fill: var(--gap); stroke: var(--line); stroke-dasharray: 3 3; }
#memory-map .fold { fill: none; stroke: var(--muted); }
#memory-map .gap-text, #memory-map .addr, #memory-map .band-what, #memory-map .label-detail { fill: var(--muted); }
#memory-map text { fill: var(--fg); } #memory-map .addr { text-anchor: end; }
#memory-map .band-name { font-weight: 700; } #memory-map .gate-badge.closed { fill: var(--bad); font-weight: 700; }
#memory-map .gate-badge.open { fill: var(--ok); font-weight: 700; }
#memory-map .section { stroke: var(--bg); stroke-width: .5; } #memory-map .code { fill: var(--code); }
#memory-map .data { fill: var(--data); } #memory-map .rodata { fill: var(--rodata); } #memory-map .bss { fill: var(--bss); }
#memory-map .section.not-copied { stroke: var(--bad); stroke-width: 2; }
#memory-map .nested-peripheral { fill: var(--muted); opacity: .6; }
#memory-map .load-image { fill: none; stroke: var(--load); stroke-dasharray: 3 2; stroke-width: 1.5; }
#memory-map .copy-arrow { fill: none; stroke-width: 1.8; } #memory-map .copy-arrow.ok { stroke: var(--ok); }
#memory-map .copy-arrow.missing { stroke: var(--bad); stroke-dasharray: 5 3; }
#memory-map .copy-ok-head { fill: var(--ok); } #memory-map .copy-missing-head { fill: var(--bad); }
#memory-map .fault-marker { stroke: var(--bad); stroke-width: 2.5; } #memory-map .fault-dot { fill: var(--bad); }
#memory-map .event-marker { fill: var(--warn); } #memory-map .pc-marker { fill: var(--code); }
#memory-map .npu-marker { fill: var(--code); opacity: 0.7; }
#memory-map .label.label-pc { fill: var(--code); font-weight: 700; }
#memory-map .leader { fill: none; stroke: var(--line); } #memory-map .leader.label-fault { stroke: var(--bad); }
#memory-map .label.label-fault, #memory-map .label.not-copied { fill: var(--bad); font-weight: 700; }
#memory-map .label.label-event { fill: var(--warn); } #memory-map .label.label-load { fill: var(--muted); }
)css";

}  // namespace faultline
