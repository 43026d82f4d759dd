// The report's stylesheet: follows the reader's light or dark preference,
// prints cleanly, and needs no fonts or images from anywhere.
#include "core/html/html_sections.h"

namespace cs::core::html {

const char* reportStyle() {
    return R"CSS(
:root{--fg:#1d1f23;--muted:#5c6370;--bg:#fff;--panel:#f5f6f8;--line:#d8dbe0;--grid:#e6e8eb;--bad:#b3261e;
--warn:#8a5a00;--good:#1b7f3b;--band:rgba(90,110,160,.09);--accent:#2f5fb3}
@media (prefers-color-scheme:dark){:root{--fg:#e3e5e8;--muted:#a0a7b2;--bg:#17191c;--panel:#22252a;
--line:#3a3f46;--grid:#2c3036;--bad:#ff8a80;--warn:#ffcc66;--good:#7ddc95;--band:rgba(150,170,230,.12);--accent:#8ab4ff}}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--fg);background:var(--bg)}
header,main,footer{max-width:1180px;margin:0 auto;padding:0 24px}
header{padding-top:20px}h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}
.sub,.intro,.note,footer{color:var(--muted)}.intro{margin:0 0 8px;max-width:900px}
footer{padding:24px;font-size:12px}
nav{display:flex;flex-wrap:wrap;gap:4px 14px;margin:10px 0 0;padding:8px 0;border-bottom:1px solid var(--line)}
nav a{color:var(--accent);text-decoration:none}nav a:hover{text-decoration:underline}
.tablewrap{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:6px 0 12px;font-variant-numeric:tabular-nums}
td,th{border:1px solid var(--line);padding:3px 8px;text-align:right;vertical-align:top}
th{background:var(--panel);font-weight:600}td.l,th.l{text-align:left}td:not(.l){white-space:nowrap}td.wrap{white-space:normal;min-width:6em}
.run{white-space:nowrap}td .run{white-space:normal}.run .lead{white-space:nowrap}
td.best{font-weight:700;color:var(--good)}small.ci{display:block;font-size:11.5px;font-weight:400;color:var(--muted)}td.bad,tr.bad td{color:var(--bad)}td.warn{color:var(--warn)}
.err{color:var(--bad);white-space:pre-wrap;overflow-wrap:anywhere}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
td code{white-space:pre-wrap;overflow-wrap:anywhere}code.src{display:block;min-width:260px}
span.module code{white-space:nowrap;overflow-wrap:normal}td.names{overflow-wrap:anywhere;min-width:14em}td.reason{max-width:420px}td.reason pre{max-height:240px}
pre{background:var(--panel);padding:8px;overflow:auto;max-height:360px;white-space:pre-wrap;overflow-wrap:anywhere}
details{margin:4px 0}summary{cursor:pointer;color:var(--accent)}
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px;border-radius:2px;vertical-align:baseline}
.chart{margin:6px 0 14px;max-width:800px}.chart svg{width:100%;height:auto;font-size:11px;fill:var(--fg)}
.chart .grid{stroke:var(--grid)}.chart .axis{stroke:var(--muted)}.chart .axislabel{fill:var(--muted);font-size:11.5px}
.chart .band{fill:var(--band)}.chart .bandlabel{fill:var(--muted);font-size:10px}
.legend{display:flex;flex-wrap:wrap;gap:2px 14px;font-size:12px;color:var(--muted)}
.legend i{display:inline-block;width:12px;height:4px;margin-right:5px;vertical-align:middle}
.empty{color:var(--muted);font-style:italic}
.map{display:flex;flex-wrap:wrap;align-items:stretch;gap:6px;margin:6px 0 14px}
.map .g{border:1px solid var(--line);background:var(--panel);border-radius:4px;padding:4px 8px;min-width:84px}
.map .g b{display:block}.map .g small{color:var(--muted)}
.map .brk{border-left:3px dashed var(--bad);padding:2px 8px;color:var(--bad);max-width:260px;
overflow-wrap:anywhere;font-size:12px;align-self:center}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(360px,1fr));gap:0 18px}
.finding{border:1px solid var(--line);border-left-width:4px;border-radius:4px;padding:2px 12px;margin:8px 0}
.finding p{margin:6px 0}.ftitle{font-weight:600}.ftitle .run{white-space:normal}.floc code{background:var(--panel);padding:1px 4px}
.evidence{margin:4px 0;padding-left:20px}
.sev{display:inline-block;font-size:11px;text-transform:uppercase;padding:0 6px;border-radius:3px;color:#fff}
.sev-critical{background:var(--bad)}.sev-warning{background:#b86e00}.sev-info{background:var(--muted)}
@media print{nav{display:none}pre{max-height:none}section{break-inside:avoid-page}}
)CSS";
}

} // namespace cs::core::html
