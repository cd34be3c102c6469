// Parts of a page marked data-refresh are fetched again when the service says their
// event (data-on) happened: a board that updates without a reload.
(function () {
  const parts = document.querySelectorAll("[data-refresh]");
  if (!parts.length || !window.EventSource) return;
  const events = new EventSource("/events");
  const names = new Set(Array.from(parts, (part) => part.dataset.on));
  for (const name of names) {
    events.addEventListener(name, () => {
      for (const part of document.querySelectorAll(`[data-on="${name}"]`)) {
        fetch(part.dataset.refresh, {credentials: "same-origin"})
          .then((answer) => (answer.ok ? answer.text() : Promise.reject(answer.status)))
          .then((html) => { part.innerHTML = html; })
          .catch(() => {});
      }
    });
  }
})();
