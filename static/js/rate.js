// Keyboard answers on the rater's page: each button carries its key in data-key; the answer form
// and the undo form (key u) share the handler.
(function () {
  const forms = ["answer", "undo"].map((id) => document.getElementById(id)).filter(Boolean);
  if (!forms.length) return;
  let sent = false;
  document.addEventListener("keydown", function (event) {
    if (sent || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("input, textarea, select")) return;
    const key = CSS.escape(event.key.toLowerCase());
    const button = forms
      .map((form) => form.querySelector(`button[data-key="${key}"]`))
      .find(Boolean);
    if (!button) return;
    event.preventDefault();
    sent = true; // one answer per page: a held key must not answer the next item too
    button.classList.add("pressed");
    button.form.requestSubmit(button);
  });
})();
