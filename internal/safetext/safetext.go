// Package safetext escapes what a hostile guest could use to drive the
// user's terminal: C0 and C1 control characters (ESC starts every ANSI
// sequence; U+009B is a one-character CSI), DEL, Unicode bidi and other
// invisible format characters (a "Trojan Source" holder name) and bytes
// that are not UTF-8. They are replaced by visible escapes (\x1b, \u009b,
// \u202e), so the text stays readable and the reader sees that the guest
// sent them.
//
// kregress escapes guest text once, where it is decoded and stored (the
// agent's documents, the console's kernel reports, the error texts built
// from the console and the agent's stderr), not where it is rendered:
// results are rendered by many commands (show, diff, nightly, bisect,
// HTML, CSV, exports) and read back by tools of their own, and one place
// at the edge cannot be forgotten by the next renderer. Raw bytes stay
// only in the cell's artifact files. The read edges escape again
// (results.EscapeRun and EscapeResult, called by the store's reads and by
// export files): runs stored before this escaping existed, or files from
// elsewhere, then render as safely; escaping is idempotent.
package safetext

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line escapes every control character, newlines and tabs included: for
// one-line fields (names, titles, holders) that go into table cells.
func Line(s string) string { return escape(s, false) }

// Text escapes control characters but keeps newlines and tabs: for
// multi-line texts (console tails, traces, error messages).
func Text(s string) string { return escape(s, true) }

// Clean says whether s needs no escaping as a Line.
func Clean(s string) bool { return Line(s) == s }

func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == utf8.RuneError:
		return false // decided by the caller: only an invalid byte is escaped
	}
	// Cf: bidi overrides and isolates, zero-width joiners, soft hyphen.
	return unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

func escape(s string, multiline bool) string {
	clean := true
	for i, r := range s {
		if unsafeRune(r) || (r == utf8.RuneError && isInvalid(s[i:])) {
			if multiline && (r == '\n' || r == '\t') {
				continue
			}
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isInvalid says whether s starts with a byte that is not UTF-8 (and not
// an encoded U+FFFD, which is harmless).
func isInvalid(s string) bool {
	_, size := utf8.DecodeRuneInString(s)
	return size <= 1
}

// Strings escapes, in place, every string reachable from ptr (a pointer
// to a struct, slice or map): struct fields, slice elements, map keys
// and values. A struct field tagged `safetext:"text"` is escaped as Text,
// every other string as Line. It lets a decoder escape a whole document
// without listing its fields, so a field added later is not forgotten.
func Strings(ptr any) {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("safetext.Strings needs a non-nil pointer")
	}
	walk(v.Elem(), false)
}

func walk(v reflect.Value, multiline bool) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(escape(v.String(), multiline))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), multiline)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			walk(v.Field(i), t.Field(i).Tag.Get("safetext") == "text")
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walk(v.Index(i), multiline)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		fresh := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(iter.Key())
			walk(k, false)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(iter.Value())
			walk(e, multiline)
			fresh.SetMapIndex(k, e)
		}
		if v.CanSet() {
			v.Set(fresh)
		} else {
			v.Clear()
			iter := fresh.MapRange()
			for iter.Next() {
				v.SetMapIndex(iter.Key(), iter.Value())
			}
		}
	}
}
