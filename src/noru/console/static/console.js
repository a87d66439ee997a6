// The console's small client. Every page works without it; it adds:
// - arrow keys move between the timeline's captures (Enter opens one), and
//   on a capture's page go to the newer (left) or older (right) capture;
// - the timeline's "Delete selected" button says how many are ticked;
// - the timeline loads older captures as you scroll ("Older captures" stays
//   the way without a script);
// - the viewer: copy buttons, "Actual size" zoom, a line's text shown when
//   its box is clicked, and the first searched line scrolled into view;
// - the scrubber: dragging through the day's hours previews the capture
//   nearest the pointer's time (a slider under the bars does the same from
//   the keyboard: arrows step from capture to capture, Page Up/Down an hour,
//   Home/End the day's first and last, Enter opens the one previewed).
"use strict";

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  if (["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
  if (document.activeElement.getAttribute("role") === "slider") return;
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

// The scrubber's live preview: the capture nearest a time of the day, asked
// of /scrub one request at a time (the latest wish wins while one is out).
function scrubber(nav) {
  const day = nav.dataset.day;
  const bars = Array.from(nav.querySelectorAll("a"));
  const area = document.createElement("div");
  area.className = "scrub";
  const track = document.createElement("div");
  track.className = "track";
  track.tabIndex = 0;
  track.setAttribute("role", "slider");
  track.setAttribute("aria-label", `Preview the captures of ${nav.dataset.label}`);
  track.setAttribute("aria-valuemin", "0");
  track.setAttribute("aria-valuemax", "86399");
  track.setAttribute("aria-valuenow", "0");
  track.setAttribute("aria-valuetext", "no capture previewed yet: drag, or press the arrow keys");
  const handle = document.createElement("span");
  handle.className = "handle";
  track.append(handle);
  const peek = document.createElement("a");
  peek.className = "peek";
  peek.hidden = true;
  const image = document.createElement("img");
  image.width = 240;
  image.height = 150;
  const when = document.createElement("span");
  when.className = "when";
  const words = document.createElement("span");
  words.className = "src";
  peek.append(when, words); // the image joins with the first capture shown
  area.append(track, peek);
  nav.after(area);

  let shown = null; // the capture previewed: {id, time, second, words, alt}
  let busy = false;
  let wanted = null; // [second, toward] asked while a request was out

  const place = (second) => {
    const bar = bars[Math.min(23, Math.floor(second / 3600))];
    const box = bar.getBoundingClientRect();
    const from = nav.getBoundingClientRect().left;
    const x = box.left - from + (box.width * (second % 3600)) / 3600;
    handle.style.left = `${x}px`;
    peek.style.left = `${Math.max(0, Math.min(x - 130, area.clientWidth - 260))}px`;
  };
  const show = (found, second) => {
    if (!found.id) {
      track.setAttribute("aria-valuenow", String(second));
      track.setAttribute("aria-valuetext", "no capture there");
      place(second);
      return;
    }
    shown = found;
    peek.href = `/capture/${found.id}`;
    if (!image.parentNode) peek.prepend(image);
    image.src = `/thumb/${found.id}`;
    image.alt = found.alt;
    when.textContent = found.time;
    words.textContent = found.words;
    peek.hidden = false;
    track.setAttribute("aria-valuenow", String(found.second));
    track.setAttribute("aria-valuetext", `${found.time}, ${found.words}`);
    place(found.second);
  };
  const ask = async (second, toward = "near") => {
    if (busy) { wanted = [second, toward]; return; }
    busy = true;
    try {
      const query = `${nav.dataset.filters}&day=${day}&second=${second}&toward=${toward}`;
      const answer = await fetch(`/scrub?${query.replace(/^&/, "")}`, { credentials: "same-origin" });
      if (answer.ok) show(await answer.json(), second);
    } finally {
      busy = false;
    }
    if (wanted) { const [s, t] = wanted; wanted = null; ask(s, t); }
  };
  const secondAt = (x) => {
    let bar = bars.findIndex((b) => b.getBoundingClientRect().right >= x);
    if (bar < 0) bar = 23;
    const box = bars[bar].getBoundingClientRect();
    const part = Math.min(1, Math.max(0, (x - box.left) / box.width));
    return Math.min(86399, bar * 3600 + Math.floor(part * 3600));
  };

  // Dragging over the bars or the slider; a press that does not move is a
  // plain click (a bar's link into its hour).
  let pressed = null;
  let dragged = false;
  const down = (event) => {
    if (event.button !== 0) return;
    pressed = event.clientX;
    dragged = false;
  };
  const move = (event) => {
    if (pressed === null) return;
    if (!dragged && Math.abs(event.clientX - pressed) < 4) return;
    // Held from here on, wherever the pointer goes (not before: a plain
    // click must reach the bar's link).
    if (!dragged) event.currentTarget.setPointerCapture(event.pointerId);
    dragged = true;
    nav.classList.add("scrubbing");
    const second = secondAt(event.clientX);
    place(second);
    ask(second);
  };
  const up = () => {
    if (pressed === null) return;
    pressed = null;
    nav.classList.remove("scrubbing");
    if (dragged) track.focus();
  };
  for (const surface of [nav, track]) {
    surface.addEventListener("pointerdown", down);
    surface.addEventListener("pointermove", move);
    surface.addEventListener("pointerup", up);
    surface.addEventListener("pointercancel", up);
  }
  // A link pressed and moved would be dragged away as a link: not here.
  bars.forEach((bar) => { bar.draggable = false; });
  nav.addEventListener("dragstart", (event) => event.preventDefault());
  nav.addEventListener("click", (event) => {
    if (dragged) { event.preventDefault(); dragged = false; }
  }, true);
  track.addEventListener("click", (event) => {
    if (!dragged) ask(secondAt(event.clientX));
    dragged = false;
  });
  // The preview goes when the focus leaves it and the slider (or on Escape).
  area.addEventListener("focusout", (event) => {
    if (!area.contains(event.relatedTarget) && pressed === null) peek.hidden = true;
  });
  track.addEventListener("focus", () => { if (shown) peek.hidden = false; });
  track.addEventListener("keydown", (event) => {
    const now = shown ? shown.second : null;
    const steps = {
      ArrowRight: () => (now === null ? [0, "near"] : [now, "later"]),
      ArrowUp: () => (now === null ? [0, "near"] : [now, "later"]),
      ArrowLeft: () => (now === null ? [86399, "near"] : [now, "earlier"]),
      ArrowDown: () => (now === null ? [86399, "near"] : [now, "earlier"]),
      PageUp: () => [Math.min(86399, (now ?? 0) + 3600), "near"],
      PageDown: () => [Math.max(0, (now ?? 86399) - 3600), "near"],
      Home: () => [0, "near"],
      End: () => [86399, "near"],
    };
    if (event.key === "Escape") { peek.hidden = true; return; }
    if (event.key === "Enter" && shown) {
      event.preventDefault();
      window.location.assign(peek.href);
      return;
    }
    const step = steps[event.key];
    if (!step || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    event.stopPropagation();
    ask(...step());
  });
}

document.addEventListener("DOMContentLoaded", () => {
  const bars = document.querySelector("nav.scrubber");
  if (bars) scrubber(bars);
  const link = document.querySelector("main p.more a[rel=next]");
  if (link && document.querySelector("a.card")) older(link);
  const hit = document.querySelector(".boxes rect.hit");
  if (hit) hit.scrollIntoView({ block: "center" });
});
