// Sends a form marked data-auto-submit as soon as a person has the page in front of them: the
// POST it makes does the work (leasing an item, joining a campaign) that a GET must not, and its
// button stays for a browser without scripts. A page Chrome prerenders for a link the person
// has not opened yet waits until it is shown.
(function () {
  const form = document.querySelector("form[data-auto-submit]");
  if (!form) return;
  const send = () => form.requestSubmit();
  if (document.prerendering) {
    document.addEventListener("prerenderingchange", send, { once: true });
  } else {
    send();
  }
})();
