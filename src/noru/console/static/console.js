// The console's small client. Every page works without it; it adds:
// - arrow keys move between the timeline's captures (Enter opens one), and
//   on a capture's page go to the newer (left) or older (right) capture;
// - the timeline's "Delete selected" button says how many are ticked;
// - the timeline loads older captures as you scroll ("Older captures" stays
//   the way without a script);
// - the viewer: copy buttons, "Actual size" zoom, a line's text shown when
//   its box is clicked, and the first searched line scrolled into view.
"use strict";

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
  const beside = document.querySelector(`nav.steps a[data-key="${event.key}"]`);
  if (beside) {
    event.preventDefault();
    window.location.assign(beside.href);
    return;
  }
  const cards = Array.from(document.querySelectorAll("a.card, a.hit"));
  if (!cards.length || !["ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp"].includes(event.key)) return;
  const at = cards.indexOf(document.activeElement);
  const perRow = Math.max(1, Math.round(cards[0].parentElement.parentElement.clientWidth / cards[0].parentElement.clientWidth));
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: perRow, ArrowUp: -perRow }[event.key];
  const next = Math.min(cards.length - 1, Math.max(0, at < 0 ? 0 : at + step));
  cards[next].focus();
  event.preventDefault();
});

document.addEventListener("click", (event) => {
  const copy = event.target.closest("button.copy");
  if (copy) {
    const text = document.getElementById(copy.dataset.copy).textContent;
    navigator.clipboard.writeText(text).then(() => { copy.textContent = "Copied"; });
    return;
  }
  const zoom = event.target.closest("button.zoom");
  if (zoom) {
    const native = zoom.closest("figure").classList.toggle("native");
    zoom.setAttribute("aria-pressed", String(native));
    zoom.textContent = native ? "Fit to page" : "Actual size";
    return;
  }
  const line = event.target.closest(".boxes rect");
  if (line) {
    const figure = line.closest("figure");
    figure.querySelectorAll("rect.chosen").forEach((r) => r.classList.remove("chosen"));
    line.classList.add("chosen");
    figure.querySelector("output.line").textContent = line.querySelector("title").textContent;
  }
});

// Older captures, a page at a time, when the "Older captures" link nears view.
function older(link) {
  const watch = new IntersectionObserver(async (seen) => {
    if (!seen.some((s) => s.isIntersecting)) return;
    watch.disconnect();
    const answer = await fetch(link.href, { credentials: "same-origin" });
    if (!answer.ok) return;
    const next = new DOMParser().parseFromString(await answer.text(), "text/html");
    const main = document.querySelector("main");
    const sections = Array.from(main.querySelectorAll("section"));
    const last = sections[sections.length - 1];
    const paragraph = link.closest("p.more");
    Array.from(next.querySelectorAll("main > section")).forEach((section, n) => {
      // The hour the last page ended in may go on in this one.
      if (n === 0 && last && section.querySelector("h2").textContent === last.querySelector("h2").textContent) {
        last.querySelector("ul").append(...section.querySelectorAll("ul > li"));
      } else {
        main.insertBefore(document.adoptNode(section), paragraph);
      }
    });
    const more = next.querySelector("main p.more a[rel=next]");
    if (more) {
      link.href = more.href;
      older(link);
    } else {
      paragraph.remove();
    }
  }, { rootMargin: "600px" });
  watch.observe(link);
}

document.addEventListener("change", (event) => {
  if (!event.target.matches('input[form="bulk"]')) return;
  const ticked = document.querySelectorAll('input[form="bulk"]:checked').length;
  document.querySelector("#bulk button").textContent =
    ticked ? `Delete ${ticked} selected…` : "Delete selected…";
});

document.addEventListener("DOMContentLoaded", () => {
  const link = document.querySelector("main p.more a[rel=next]");
  if (link && document.querySelector("a.card")) older(link);
  const hit = document.querySelector(".boxes rect.hit");
  if (hit) hit.scrollIntoView({ block: "center" });
});
