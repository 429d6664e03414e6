// The authorization endpoint's answer in response_mode=form_post: the page's one form, posted
// to the client's redirect URI as soon as the page is read (its button does it without scripts).
document.getElementById("form-post")?.submit();
