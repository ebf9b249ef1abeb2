// Images in the body: a chosen, dropped or pasted image is uploaded with the alt text typed
// beside it, and its Markdown goes where the cursor was; an image from another site, which
// the preview cannot show, can be fetched and stored here instead. Listeners sit on the
// document: saves swap the whole editor.
(function () {
  "use strict";

  var file = null;
  var at = [0, 0];

  function $(id) {
    return document.getElementById(id);
  }

  // A byte count as the server writes it: "5 MB", "14.2 MB".
  function megabytes(bytes) {
    return (bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "") + " MB";
  }

  // "14.2 MB; the limit is 5 MB", in bytes when both would read the same.
  function sizes(size, limit) {
    var said = megabytes(size), most = megabytes(limit);
    if (said === most) {
      said = size.toLocaleString("en") + " bytes";
      most = limit.toLocaleString("en") + " bytes";
    }
    return said + "; the limit is " + most;
  }

  function say(text) {
    var line = $("body-image-status");
    if (line) line.textContent = text;
  }

  function post(url, data) {
    var token = document.querySelector('meta[name="csrf-token"]');
    return fetch(url, {
      method: "POST", body: data, credentials: "same-origin",
      headers: { "X-CSRFToken": token ? token.getAttribute("content") : "" }
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (response.ok) return answer;
        throw new Error(answer.error || "The server refused it (error " + response.status + ").");
      });
    });
  }

  // Put text into the body in place of what was selected, as if typed.
  function put(body, text, from, to) {
    body.setRangeText(text, from, to, "end");
    body.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function take(chosen) {
    var box = $("body-images");
    var body = $("body");
    if (!box || !body || !chosen) return;
    if (!/^image\//.test(chosen.type)) {
      say("“" + chosen.name + "” is not an image.");
      return;
    }
    var limit = Number(box.getAttribute("data-max-bytes"));
    if (chosen.size > limit) {
      // As the server words it (blog/media/images.py): the file's size and the limit.
      say("This image, “" + chosen.name + "”, is " + sizes(chosen.size, limit) +
          ". Choose a smaller file.");
      return;
    }
    file = chosen;
    at = [body.selectionStart, body.selectionEnd];
    $("body-image-panel").hidden = false;
    say("Describe “" + chosen.name + "”, then press Insert.");
    $("body-image-alt").focus();
  }

  function close() {
    file = null;
    $("body-image-panel").hidden = true;
    $("body-image-alt").value = "";
    $("body").focus();
  }

  function insert() {
    var alt = $("body-image-alt").value.trim();
    if (!file) return;
    if (!alt) {
      say("The alt text is required: describe the image for readers who cannot see it.");
      $("body-image-alt").focus();
      return;
    }
    var data = new FormData();
    data.append("image", file, file.name);
    data.append("alt", alt);
    say("Uploading…");
    post($("body-images").getAttribute("data-upload-url"), data).then(function (answer) {
      var body = $("body");
      close();
      put(body, answer.markdown, at[0], at[1]);
      say("Image inserted.");
    }, function (error) {
      say(error.message);
    });
  }

  function imageIn(list) {
    for (var i = 0; list && i < list.length; i++) {
      if (/^image\//.test(list[i].type)) return list[i];
    }
    return null;
  }

  document.addEventListener("paste", function (event) {
    var found = event.target.id === "body" && imageIn(event.clipboardData.files);
    if (!found) return;
    event.preventDefault();
    take(found);
  });

  document.addEventListener("dragover", function (event) {
    if (event.target.id === "body" && event.dataTransfer.types.indexOf("Files") !== -1) {
      event.preventDefault();
    }
  });

  document.addEventListener("drop", function (event) {
    var found = event.target.id === "body" && imageIn(event.dataTransfer.files);
    if (!found) return;
    event.preventDefault();
    take(found);
  });

  document.addEventListener("change", function (event) {
    if (event.target.id !== "body-image-file") return;
    take(event.target.files[0]);
    event.target.value = "";
  });

  document.addEventListener("keydown", function (event) {
    if (event.target.id !== "body-image-alt") return;
    if (event.key === "Enter") {
      event.preventDefault();  // not the post form's submit
      insert();
    } else if (event.key === "Escape") {
      close();
    }
  });

  document.addEventListener("click", function (event) {
    var target = event.target;
    if (target.id === "body-image-choose") $("body-image-file").click();
    else if (target.id === "body-image-insert") insert();
    else if (target.id === "body-image-cancel") close();
    else if (target.hasAttribute && target.hasAttribute("data-fetch-image")) fetchImage(target);
  });

  // Fetch another site's image into the store, then point the body at the stored copy.
  function fetchImage(button) {
    var url = button.getAttribute("data-fetch-image");
    var data = new FormData();
    data.append("url", url);
    button.disabled = true;
    say("Fetching " + url + "…");
    post($("blocked-images").getAttribute("data-fetch-url"), data).then(function (answer) {
      var body = $("body");
      var text = body.value.split("](" + url).join("](" + answer.src);
      if (text === body.value) {
        say("Stored as " + answer.src + ": put that address in the body in place of " + url + ".");
        return;
      }
      put(body, text, 0, body.value.length);
      say("Stored here: the body now points at " + answer.src + ".");
    }, function (error) {
      button.disabled = false;
      say(error.message);
    });
  }

  function show() {
    var box = $("body-images");
    if (box) box.hidden = false;
  }

  document.addEventListener("htmx:afterSettle", show);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show);
  else show();
})();
