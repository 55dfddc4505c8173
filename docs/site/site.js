// The site's one script: the search box of the header (over assets/search-index.json, built with
// the site), the gaps page's filter, and opening a folded payload a link points into. No network:
// the index is read from the site itself, next to this script.
(() => {
  "use strict";
  const script = document.currentScript;
  const assets = script && script.src ? new URL(".", script.src) : new URL("assets/", location.href);
  const site = new URL("..", assets);

  const words = (text) => text.toLowerCase().split(/\s+/).filter(Boolean);

  // Search ---------------------------------------------------------------------------------------
  let index = null;
  const loadIndex = () => {
    index =
      index ||
      fetch(new URL("search-index.json", assets))
        .then((r) => (r.ok ? r.json() : []))
        .catch(() => []);
    return index;
  };

  /** Entries holding every word, best first: words in the title count more than in the text. */
  const search = (entries, query) => {
    const terms = words(query);
    if (terms.length === 0) return [];
    const scored = [];
    for (const entry of entries) {
      const title = entry.title.toLowerCase();
      const text = entry.text.toLowerCase();
      let score = 0;
      let all = true;
      for (const term of terms) {
        const inTitle = title.includes(term);
        const inText = !inTitle && text.includes(term);
        if (!inTitle && !inText) {
          all = false;
          break;
        }
        score += inTitle ? 3 : 1;
      }
      if (all) scored.push({ entry, score });
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, 12).map((s) => s.entry);
  };

  /** A short excerpt of the text around the first term it holds. */
  const excerpt = (text, query) => {
    const lower = text.toLowerCase();
    const at = Math.min(...words(query).map((t) => lower.indexOf(t)).filter((i) => i >= 0), Infinity);
    if (at === Infinity) return text.slice(0, 140);
    // Start at a word: from the first space after 60 characters before the match.
    let start = Math.max(0, at - 60);
    const space = text.indexOf(" ", start);
    if (start > 0 && space >= 0 && space < at) start = space + 1;
    return `${start > 0 ? "… " : ""}${text.slice(start, start + 160)}${start + 160 < text.length ? " …" : ""}`;
  };

  const setUpSearch = () => {
    const input = document.getElementById("site-search");
    const panel = document.getElementById("site-search-results");
    if (!input || !panel) return;
    const render = async () => {
      const query = input.value.trim();
      if (!query) {
        panel.hidden = true;
        panel.replaceChildren();
        return;
      }
      const results = search(await loadIndex(), query);
      if (input.value.trim() !== query) return;
      panel.replaceChildren();
      if (results.length === 0) {
        const none = document.createElement("p");
        none.className = "search-none";
        none.textContent = `Nothing found for “${query}”.`;
        panel.append(none);
      }
      for (const entry of results) {
        const link = document.createElement("a");
        link.className = "search-result";
        link.href = new URL(entry.href, site).href;
        link.setAttribute("role", "option");
        const kind = document.createElement("span");
        kind.className = "search-kind";
        kind.textContent = entry.kind;
        const title = document.createElement("span");
        title.className = "search-title";
        title.textContent = entry.title;
        link.append(kind, title);
        if (entry.text) {
          const text = document.createElement("span");
          text.className = "search-excerpt";
          text.textContent = excerpt(entry.text, query);
          link.append(text);
        }
        panel.append(link);
      }
      panel.hidden = false;
    };
    input.addEventListener("input", render);
    input.addEventListener("focus", () => {
      loadIndex();
      if (input.value.trim()) render();
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        input.value = "";
        render();
      } else if (event.key === "Enter") {
        const first = panel.querySelector("a");
        if (first) location.href = first.href;
      }
    });
    document.addEventListener("click", (event) => {
      if (!panel.contains(event.target) && event.target !== input) panel.hidden = true;
    });
    // "/" focuses the search, unless the reader is typing somewhere already.
    document.addEventListener("keydown", (event) => {
      const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? "");
      if (event.key === "/" && !typing) {
        event.preventDefault();
        input.focus();
      }
    });
  };

  // Gaps filter ----------------------------------------------------------------------------------
  const setUpGapFilter = () => {
    const input = document.getElementById("gap-filter");
    const count = document.getElementById("gap-filter-count");
    if (!input) return;
    const entries = [...document.querySelectorAll(".gap-entry")];
    const groups = [...document.querySelectorAll(".gap-group")];
    const apply = () => {
      const terms = words(input.value);
      let shown = 0;
      for (const group of groups) {
        const heading = (group.querySelector("h3")?.textContent ?? "").toLowerCase();
        let visible = 0;
        for (const entry of group.querySelectorAll(".gap-entry")) {
          const text = `${heading} ${entry.textContent.toLowerCase()}`;
          const match = terms.every((t) => text.includes(t));
          entry.hidden = !match;
          if (match) visible++;
        }
        group.hidden = visible === 0;
        shown += visible;
      }
      if (count) count.textContent = `${shown} of ${entries.length} marks`;
    };
    input.addEventListener("input", apply);
    apply();
  };

  // Folded payloads: a link into one opens it ------------------------------------------------------
  const openTarget = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id && document.getElementById(id);
    for (let node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    if (target) target.scrollIntoView();
  };

  const start = () => {
    setUpSearch();
    setUpGapFilter();
    if (document.querySelector("details")) {
      window.addEventListener("hashchange", openTarget);
      openTarget();
    }
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
