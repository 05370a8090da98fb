// Drag a file onto the zone to put it in the form's file input.
(function () {
  const zone = document.getElementById("dropzone");
  const input = document.querySelector("#submission-form input[type=file]");
  if (!zone || !input) return;
  const show = () => { zone.textContent = input.files.length ? input.files[0].name : zone.textContent; };
  ["dragenter", "dragover"].forEach((name) => zone.addEventListener(name, (event) => {
    event.preventDefault(); zone.classList.add("over");
  }));
  ["dragleave", "drop"].forEach((name) => zone.addEventListener(name, () => zone.classList.remove("over")));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    input.files = event.dataTransfer.files;
    show();
  });
  zone.addEventListener("click", () => input.click());
  zone.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") input.click(); });
  input.addEventListener("change", show);
})();
