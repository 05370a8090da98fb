// Keyboard answers on the rater's page: each button carries its key in data-key.
(function () {
  const form = document.getElementById("answer");
  if (!form) return;
  let sent = false;
  document.addEventListener("keydown", function (event) {
    if (sent || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select")) return;
    const button = form.querySelector(`button[data-key="${CSS.escape(event.key.toLowerCase())}"]`);
    if (!button) return;
    event.preventDefault();
    sent = true; // one answer per page: a held key must not answer the next item too
    button.classList.add("pressed");
    form.requestSubmit(button);
  });
})();
