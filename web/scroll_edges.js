// A table wider than its card scrolls sideways; the side where more of it lies fades out, so a reader sees there
// is more (an arms table of eleven variants shows seven columns at 900 px). The wrap's data-more-left and
// data-more-right ("true" / "false") say where, for style.css and the tests.
export function watchScrollEdges(wrap) {
  const update = () => {
    const hidden = wrap.scrollWidth - wrap.clientWidth;
    wrap.dataset.moreLeft = String(wrap.scrollLeft > 1);
    wrap.dataset.moreRight = String(wrap.scrollLeft < hidden - 1);
  };
  wrap.addEventListener('scroll', update, { passive: true });
  // The card narrows or widens, or the table is drawn again wider or narrower.
  const resized = new ResizeObserver(update);
  resized.observe(wrap);
  new MutationObserver(() => {
    for (const child of wrap.children) resized.observe(child);
    update();
  }).observe(wrap, { childList: true });
  for (const child of wrap.children) resized.observe(child);
  update();
}

// Every sideways-scrolling table of the page.
export function watchAllScrollEdges(root = document) {
  for (const wrap of root.querySelectorAll('.table-wrap')) watchScrollEdges(wrap);
}
