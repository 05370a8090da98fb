// Say which file is about to be imported and how large it is, before the upload starts.
(function () {
  const input = document.querySelector("#import-form input[type=file]");
  const summary = document.getElementById("file-summary");
  if (!input || !summary) return;
  input.addEventListener("change", function () {
    const file = input.files[0];
    summary.textContent = file ? `${file.name}: ${(file.size / 1024).toFixed(1)} KB` : "";
  });
})();
