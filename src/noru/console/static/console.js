// Keyboard through the timeline (arrow keys move between captures, Enter opens
// one), and the copy buttons beside a capture's text. Nothing else runs here.
"use strict";
document.addEventListener("keydown", (event) => {
  const cards = Array.from(document.querySelectorAll("a.card, a.hit"));
  if (!cards.length || !["ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp"].includes(event.key)) return;
  if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
  const at = cards.indexOf(document.activeElement);
  const perRow = Math.max(1, Math.round(cards[0].parentElement.parentElement.clientWidth / cards[0].parentElement.clientWidth));
  const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: perRow, ArrowUp: -perRow }[event.key];
  const next = Math.min(cards.length - 1, Math.max(0, at < 0 ? 0 : at + step));
  cards[next].focus();
  event.preventDefault();
});
document.addEventListener("click", (event) => {
  const button = event.target.closest("button.copy");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy).textContent;
  navigator.clipboard.writeText(text).then(() => { button.textContent = "Copied"; });
});
