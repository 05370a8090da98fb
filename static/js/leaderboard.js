// Leaderboard page: sort the table by a column; follow one's own submissions being scored.
(function () {
  const table = document.querySelector("table.sortable");
  if (table) {
    const value = (row, index) => {
      const cell = row.cells[index];
      const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
      const number = parseFloat(raw);
      return raw !== "" && !isNaN(number) && /^-?[\d.]/.test(raw) ? number : raw.toLowerCase();
    };
    table.querySelectorAll("thead th").forEach((th, index) => {
      const button = th.querySelector("button");
      if (!button) return;
      button.addEventListener("click", () => {
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("thead th").forEach((other) => other.removeAttribute("aria-sort"));
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        rows.sort((r1, r2) => {
          const a = value(r1, index), b = value(r2, index);
          if (a === b) return 0;
          if (a === "") return 1;  // empty cells last either way
          if (b === "") return -1;
          return (a < b ? -1 : 1) * (ascending ? 1 : -1);
        });
        rows.forEach((row) => body.appendChild(row));
      });
    });
  }

  const live = Array.from(document.querySelectorAll(".live-submission"));
  const follow = (box) => new Promise((done) => {
    const tick = async () => {
      const response = await fetch(box.dataset.url, { credentials: "same-origin" });
      if (!response.ok) return done();
      const submission = await response.json();
      box.querySelector("progress").value = submission.progress;
      box.querySelector(".percent").textContent = submission.progress + "%";
      box.querySelector(".status").textContent = submission.status;
      if (["submitted", "queued", "running"].includes(submission.status)) setTimeout(tick, 1000);
      else done();
    };
    tick();
  });
  if (live.length) Promise.all(live.map(follow)).then(() => window.location.reload());
})();
