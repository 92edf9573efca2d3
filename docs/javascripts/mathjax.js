// MathJax 3 configuration for pymdownx.arithmatex (generic mode), as in the mkdocs-material docs,
// extended to the rendered notebooks: mkdocs-jupyter leaves $...$ and $$...$$ in the markdown cells
// (class jp-RenderedMarkdown), so those delimiters are accepted there too.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex|jp-RenderedMarkdown"
  }
};

document$.subscribe(() => {
  MathJax.startup.output.clearCache()
  MathJax.typesetClear()
  MathJax.texReset()
  MathJax.typesetPromise()
})
