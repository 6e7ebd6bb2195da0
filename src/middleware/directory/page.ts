/**
 * The default page and stylesheet of the HTML listing. They live in code, not
 * in files beside it, so the build (tsc alone) ships them and no request reads
 * them from disk. The ids and classes (`#files`, `.view-details`, `.name`,
 * `.size`, `.date`, `.icon-*`, `#search`, `.highlight`) are the ones 3.x
 * stylesheets target, so a custom `stylesheet` written for 3.x still applies.
 */

export const DEFAULT_TEMPLATE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>listing directory {directory}</title>
<style>{style}</style>
</head>
<body class="directory">
<input id="search" type="search" placeholder="Filter" autocomplete="off" aria-label="Highlight names containing">
<div id="wrapper">
<h1><a href="/">~</a>{linked-path}</h1>
{files}
</div>
<script>
(function () {
  var box = document.getElementById('search');
  var links = document.querySelectorAll('#files a');
  box.addEventListener('input', function () {
    var wanted = box.value.toLowerCase();
    for (var i = 0; i < links.length; i++) {
      var name = (links[i].getAttribute('title') || '').toLowerCase();
      var hit = wanted !== '' && name !== '..' && name.indexOf(wanted) !== -1;
      links[i].classList.toggle('highlight', hit);
    }
  });
})();
</script>
</body>
</html>
`;

export const DEFAULT_STYLESHEET = `* { box-sizing: border-box; }
body {
  margin: 0;
  padding: 32px 40px;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #24292f;
  background: #fafbfc;
}
a { color: #0b57c2; text-decoration: none; }
a:hover { text-decoration: underline; }
h1 { margin: 0 0 24px; font-size: 20px; font-weight: 500; word-break: break-all; }
h1 a { color: #24292f; }
#search {
  float: right;
  width: 220px;
  padding: 6px 10px;
  font: inherit;
  border: 1px solid #d0d7de;
  border-radius: 6px;
}
#files { list-style: none; margin: 0; padding: 0; }
#files a { display: block; padding: 6px 8px; border-radius: 6px; color: #24292f; }
#files a:hover { background: #eef2f7; text-decoration: none; }
#files a.highlight { background: #fff3b0; }
#files .name {
  display: inline-block; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; vertical-align: middle;
}
#files .icon .name { padding-left: 22px; background-repeat: no-repeat; background-position: left center; }
#files .size, #files .date { color: #6e7781; font-size: 12px; }

/* tiles: names in columns, size and date left out */
#files.view-tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 2px 12px; }
#files.view-tiles .name { max-width: 100%; }
#files.view-tiles .size, #files.view-tiles .date { display: none; }

/* details: one row per entry with its size and modification time */
#files.view-details li { border-bottom: 1px solid #eaeef2; }
#files.view-details a, #files.view-details .header { display: flex; gap: 16px; }
#files.view-details .name { flex: 1; }
#files.view-details .size { width: 90px; text-align: right; }
#files.view-details .date { width: 200px; }
#files.view-details .header { padding: 6px 8px; font-weight: 600; color: #57606a; }
#files.view-details .header span { font-size: 12px; color: inherit; }
`;
