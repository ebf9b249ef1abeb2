// A Copy button on each code block, where the Clipboard API exists; "Copied" said politely.
(function () {
  "use strict";
  var clip = navigator.clipboard;
  var blocks = document.querySelectorAll(".prose .highlight");
  if (!clip || !clip.writeText || !blocks.length) return;
  var status = document.createElement("p");
  status.id = "code-copy-status";
  status.className = "visually-hidden";
  status.setAttribute("role", "status");
  document.body.appendChild(status);

  blocks.forEach(function (block) {
    var pre = block.querySelector("pre");
    var button = document.createElement("button");
    var name = document.createElement("span");
    var timer;
    function say(word) {
      button.firstChild.data = status.textContent = word;
      clearTimeout(timer);
      timer = setTimeout(function () {
        button.firstChild.data = "Copy";
        status.textContent = "";
      }, 2000);
    }
    button.type = "button";
    button.className = "code-copy";
    name.className = "visually-hidden";
    name.textContent = " " + (pre.getAttribute("aria-label") || "code");
    button.append("Copy", name);
    button.addEventListener("click", function () {
      clip.writeText(pre.textContent).then(say.bind(0, "Copied"), say.bind(0, "Copy failed"));
    });
    block.insertBefore(button, pre);
  });
})();
