/*
 * The capacity panels' figures refresh themselves: every
 * data-refresh-seconds the page's own URL is asked with ?figures=1 and
 * its answer (the figures only) replaces them. A failed request keeps the
 * figures shown and says so; the next one tries again.
 */
(function () {
  'use strict';

  function start() {
    var box = document.getElementById('capacity-figures');
    if (!box) {
      return;
    }
    var seconds = parseInt(box.getAttribute('data-refresh-seconds'), 10);
    if (!(seconds > 0)) {
      return;
    }
    var url = window.location.pathname + '?figures=1';

    function refresh() {
      fetch(url, {credentials: 'same-origin',
                  headers: {'X-Requested-With': 'XMLHttpRequest'}})
        .then(function (response) {
          // Horizon answers a login page when the session ended.
          if (!response.ok || response.redirected) {
            throw new Error('HTTP ' + response.status);
          }
          return response.text();
        })
        .then(function (html) {
          box.innerHTML = html;
          box.removeAttribute('data-refresh-failed');
        })
        .catch(function (error) {
          box.setAttribute('data-refresh-failed', String(error));
        })
        .then(function () {
          window.setTimeout(refresh, seconds * 1000);
        });
    }
    window.setTimeout(refresh, seconds * 1000);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
