// Live progress for every `.job` element: polls its job's API URL until the job ends.
(function () {
  if (window.jobProgressStarted) return;
  window.jobProgressStarted = true;
  const ACTIVE = ["queued", "running"];
  const csrf = () => (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";

  function render(box, job) {
    box.querySelector(".job-bar").value = job.percent;
    box.querySelector(".job-percent").textContent = job.percent + "%";
    box.querySelector(".job-status").textContent = job.status_text || job.status;
    box.querySelector(".job-message").textContent = job.message || "";
    // Why a queued run still waits (no worker for its queue): shown, and hidden once it starts.
    const waiting = box.querySelector(".job-waiting");
    if (waiting) {
      waiting.textContent = job.waiting_reason || "";
      waiting.hidden = !job.waiting_reason;
    }
    const cancel = box.querySelector(".job-cancel");
    if (cancel && !ACTIVE.includes(job.status)) cancel.remove();
  }

  function watch(box) {
    // Reload only when a job that was running on this page has ended: a page rendered after
    // the end would otherwise reload itself forever.
    let sawActive = box.dataset.active === "true";
    const tick = async () => {
      const response = await fetch(box.dataset.jobUrl, { credentials: "same-origin" });
      if (!response.ok) return;
      const job = await response.json();
      render(box, job);
      if (ACTIVE.includes(job.status)) {
        sawActive = true;
        setTimeout(tick, 700);
      } else if (sawActive && box.dataset.reload === "true") {
        window.location.reload();
      }
    };
    const cancel = box.querySelector(".job-cancel");
    if (cancel) {
      cancel.addEventListener("click", async () => {
        const response = await fetch(box.dataset.cancelUrl, {
          method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf() },
        });
        if (response.ok) render(box, await response.json());
      });
    }
    tick();
  }

  document.addEventListener("DOMContentLoaded", () => document.querySelectorAll(".job").forEach(watch));
})();
