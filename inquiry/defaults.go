package inquiry

// NamedDefault is the default an asker gave for in, read the way a person names it: for a
// choice or a confirm, words that ARE an offered answer (its label or value, read with Chosen)
// stand for its value. Anything else is kept as given, for Validate to refuse with its reasons,
// so the asker learns what is wrong rather than finding a default silently changed.
func NamedDefault(in *Inquiry, given Value) Value {
	if given.IsZero() || in.Kind == KindText {
		return given
	}
	offered := Offered(in)
	items := given.Strings()
	for i, s := range items {
		if o, ok := Chosen(offered, s); ok {
			items[i] = o.Value
		}
	}
	if given.IsList() {
		return Many(items...)
	}
	return One(items[0])
}
