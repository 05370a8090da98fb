// Follow a submission's scoring: poll its API until it ends, then show the scores.
(function () {
  const box = document.getElementById("submission-status");
  if (!box || box.dataset.active !== "true") return;
  const tick = async () => {
    const response = await fetch(box.dataset.url, { credentials: "same-origin" });
    if (!response.ok) return;
    const submission = await response.json();
    box.querySelector("progress").value = submission.progress;
    box.querySelector(".percent").textContent = submission.progress + "%";
    box.querySelector(".status").textContent = submission.status_text || submission.state;
    const waiting = box.querySelector(".waiting");
    waiting.textContent = submission.waiting_reason || "";
    waiting.hidden = !submission.waiting_reason;
    if (["queued", "running"].includes(submission.state)) setTimeout(tick, 500);
    else window.location.reload();
  };
  tick();
})();
