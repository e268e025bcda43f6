package export

// Writing an export without holding it in memory: encoding/json builds
// a whole document in one buffer before writing it, so a run with one
// long string (a configuration or an error the size of the import cap)
// took that string again, and again while the buffer doubled. Long
// strings are written in pieces instead, each piece encoded as
// encoding/json encodes it, so the bytes are the same.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// longString is the length from which a string is written in pieces;
// shorter ones are encoded with the rest of the document.
const longString = 64 << 10

// pieceLen is the length of each piece of a long string.
const pieceLen = 32 << 10

// streamer writes v as json.Encoder would, its long strings (those
// given to hold) in pieces: hold swaps each for a marker that no other
// text of the document holds (a random nonce), and write puts the
// string back where its marker's encoding is.
type streamer struct {
	nonce string
	long  []string
}

func newStreamer() (*streamer, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return &streamer{nonce: hex.EncodeToString(b)}, nil
}

// hold returns s, or a marker in its place when s is long.
func (st *streamer) hold(s string) string {
	if len(s) < longString {
		return s
	}
	st.long = append(st.long, s)
	return st.marker(len(st.long) - 1)
}

func (st *streamer) marker(i int) string { return fmt.Sprintf("kregress-long-%s-%d", st.nonce, i) }

// write encodes v (newline-terminated, as json.Encoder does) to w.
func (st *streamer) write(w io.Writer, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc = append(doc, '\n')
	for i, s := range st.long {
		// The marker is plain ASCII: encoded, it is itself in quotes.
		m := []byte(`"` + st.marker(i) + `"`)
		at := bytes.Index(doc, m)
		if at < 0 {
			return fmt.Errorf("export: string %d of the document was not written", i)
		}
		if _, err := w.Write(doc[:at]); err != nil {
			return err
		}
		if err := writeString(w, s); err != nil {
			return err
		}
		doc = doc[at+len(m):]
	}
	_, err = w.Write(doc)
	return err
}

// writeString writes s as a JSON string, as json.Marshal encodes it: in
// pieces cut before a byte that starts a UTF-8 sequence (so that each
// sequence, valid or not, is in one piece and encodes as in the whole).
func writeString(w io.Writer, s string) error { return writePieces(w, s, pieceLen) }

func writePieces(w io.Writer, s string, pieceLen int) error {
	// A piece holds at least one whole sequence.
	pieceLen = max(pieceLen, utf8.UTFMax)
	if _, err := io.WriteString(w, `"`); err != nil {
		return err
	}
	// One buffer for every piece: json.Marshal would leave a copy of
	// each behind, as much garbage as the string is long.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for len(s) > 0 {
		end := min(pieceLen, len(s))
		if end < len(s) {
			// Back to the start of the sequence the cut would split;
			// past UTFMax continuation bytes no valid sequence spans
			// the cut, and each byte encodes alone wherever it is.
			cut := end
			for back := 0; back < utf8.UTFMax && end > 0 && !utf8.RuneStart(s[end]); back++ {
				end--
			}
			if end == 0 || !utf8.RuneStart(s[end]) {
				end = cut
			}
		}
		buf.Reset()
		if err := enc.Encode(s[:end]); err != nil {
			return err
		}
		// Encode wrote the piece in quotes and a newline.
		if _, err := w.Write(buf.Bytes()[1 : buf.Len()-2]); err != nil {
			return err
		}
		s = s[end:]
	}
	_, err := io.WriteString(w, `"`)
	return err
}
