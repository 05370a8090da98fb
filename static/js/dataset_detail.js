// Open or close every item's reference list at once.
(function () {
  const button = document.getElementById("toggle-all");
  if (!button) return;
  button.addEventListener("click", function () {
    const details = document.querySelectorAll(".items details");
    const open = !Array.from(details).every((d) => d.open);
    details.forEach((d) => { d.open = open; });
    button.textContent = open ? "Hide all references" : "Show all references";
  });
})();
