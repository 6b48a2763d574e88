//! The page's style and script, inline: the colors of the spans, the CSS, and the few lines
//! that open a row a link names. Nothing in them loads anything.

use std::fmt::Write as _;

/// The colors of the spans, in turn: `(red, green, blue)`.
pub(super) const HUES: [(u8, u8, u8); 6] = [
    (21, 101, 192),
    (0, 137, 123),
    (142, 36, 170),
    (239, 108, 0),
    (93, 64, 55),
    (194, 24, 91),
];

/// `.h0 { --c: ... }`: the color of each span, and its shading.
pub(super) fn hue_css() -> String {
    let mut css = String::new();
    for (i, (r, g, b)) in HUES.iter().enumerate() {
        let _ = write!(
            css,
            ".h{i}{{--c:rgb({r},{g},{b})}}.band.h{i}{{background:rgba({r},{g},{b},0.09)}}"
        );
    }
    css
}

/// The page's style. Nothing in it loads anything (no `url(`, no `@import`).
pub(super) const CSS: &str = "
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2330;background:#fff}
header,#findings,.tools,footer{padding:8px 16px}
h1{font-size:17px;margin:4px 0;font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
h2{font-size:14px;margin:4px 0}
h4{font-size:12px;margin:2px 0;color:#4a5261}
.verdict{font-weight:700;font-size:15px;margin:4px 0}
.verdict.ok{color:#1b7f3b}.verdict.fail{color:#c62828}
.meta{color:#5b6474;margin:2px 0}
#findings ol{margin:4px 0;padding-left:24px}
#findings li{margin:2px 0}
.sum{white-space:pre-wrap}
a{color:#1565c0}
.diagram{border-top:1px solid #d5d9e0;border-bottom:1px solid #d5d9e0}
.head,summary,.row.gap{display:grid;grid-template-columns:6.5em minmax(0,1fr) minmax(13em,20em) minmax(0,1fr);align-items:stretch}
.head{position:sticky;top:0;z-index:3;background:#f3f5f8;font-weight:600;border-bottom:1px solid #d5d9e0}
.head>span{padding:4px 6px}
.head .lanes{min-height:0}
.head .lanes b{position:absolute;top:4px;transform:translateX(-50%)}
.head .lc{left:12%}.head .ls{left:88%}
summary{cursor:pointer;list-style:none}
summary::-webkit-details-marker{display:none}
summary:hover{background:#f5f8ff}
.row{border-bottom:1px solid #eef0f4}
.row>summary>span,.row.gap>span{padding:3px 6px;overflow:hidden;white-space:nowrap;text-overflow:ellipsis;align-self:center}
.t{color:#5b6474;text-align:right;font-variant-numeric:tabular-nums}
.x,.a{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
.row>summary>span.lanes,.row.gap>span.lanes{align-self:stretch;padding:0;overflow:visible}
.lanes{position:relative;min-height:30px}
.lanes::before,.lanes::after{content:'';position:absolute;top:0;bottom:0;border-left:2px solid #a9b1bd}
.lanes::before{left:12%}.lanes::after{left:88%}
.arrow{--c:#39424e;position:absolute;left:12%;right:12%;top:62%;border-top:2px solid var(--c);z-index:2}
.arrow.ghost{border-top-style:dashed;--c:#c62828}
.arrow::after{content:'';position:absolute;top:-7px;border:6px solid transparent}
.arrow.to-server::after{right:-2px;border-left:10px solid var(--c);border-right:0}
.arrow.to-client::after{left:-2px;border-right:10px solid var(--c);border-left:0}
.arrow b{position:absolute;left:4px;right:4px;bottom:1px;text-align:center;font-weight:500;font-size:11px;font-style:normal;color:var(--c);white-space:nowrap;overflow:hidden;text-overflow:ellipsis;font-family:ui-monospace,Menlo,Consolas,monospace}
.bar{position:absolute;width:8px;background:var(--c);opacity:.55;border-radius:2px;z-index:1}
.band{position:absolute;left:12%;right:12%}
.mark{position:absolute;top:30%;transform:translateX(-50%);font-style:normal;font-size:12px;color:#c62828;z-index:2}
.mark.mc{left:12%;color:#5b6474}.mark.ms{left:88%}
.gap>span.a{color:#5b6474;font-style:italic}
.bad>summary{background:#fdecea}
.bad>summary:hover{background:#fbdcd8}
.bad>summary>.t{border-left:4px solid #c62828}
.own>summary{color:#7a8290}
.own .arrow{--c:#9aa2ae}
.ln{color:#5b6474;font-weight:600}
.eq{color:#1b7f3b;font-weight:600}
.dim{color:#7a8290}
.badge{display:inline-block;background:#c62828;color:#fff;border-radius:3px;padding:0 4px;font-size:11px;font-family:system-ui,sans-serif}
.more{padding:6px 16px 10px 6.5em;background:#fafbfc;border-top:1px dashed #d5d9e0}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
pre{margin:2px 0;padding:6px;background:#fff;border:1px solid #e1e4ea;border-radius:3px;white-space:pre-wrap;word-break:break-all;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;max-height:32em;overflow:auto}
.finding pre{border-color:#e8a19b}
.when,.span{color:#4a5261;margin:4px 0}
.span{border-left:4px solid var(--c,#a9b1bd);padding-left:6px}
body.only .row:not(.bad){display:none}
.notes{margin:4px 0}
.legend{color:#5b6474;margin:4px 0}
.key{display:inline-block;position:static;height:12px;vertical-align:middle}
";

/// Opens the row a link names (the findings' links, a URL ending in `#r12`; `#open:r12`
/// opens it where the page stands, without scrolling to it), and the tools above the
/// diagram. It has no `<` and no `&`, so the page stays well-formed XML
/// too.
pub(super) const SCRIPT: &str = "
(function(){
function show(){var id=decodeURIComponent(location.hash.slice(1));var stay=id.indexOf('open:')===0;if(stay){id=id.slice(5);}var e=id?document.getElementById(id):null;if(e){if(e.tagName==='DETAILS'){e.open=true;}if(!stay){e.scrollIntoView({block:'nearest'});}}}
window.addEventListener('hashchange',show);show();
var rows=function(){return Array.prototype.slice.call(document.querySelectorAll('details.row'));};
var only=document.getElementById('only');
only.addEventListener('change',function(){document.body.classList.toggle('only',only.checked);});
document.getElementById('open').addEventListener('click',function(){rows().forEach(function(d){d.open=true;});});
document.getElementById('close').addEventListener('click',function(){rows().forEach(function(d){d.open=false;});});
})();
";
