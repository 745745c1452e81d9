package blockkit

// UnescapeHTML lets the tests write JSON the way Render does.
var UnescapeHTML = unescapeHTML
