package format

// Markdown escaping for what kregress did not write itself: variant,
// metric and experiment names, kernel-report titles (console text a
// patch controls), selftest names, guest output. Without it a name with
// '|' splits a table row, and HTML or a closing code fence in it renders
// as the reader's Markdown (images, links, headings).

import "strings"

// mdText escapes s for Markdown text, a table cell included: '|' (which
// ends a cell even inside a code span), '<' (which opens HTML; '>' and
// '&' alone open nothing mid-line), and the characters that open
// emphasis, links and code. A line break becomes a
// space, so a row stays one row.
func mdText(s string) string {
	return mdReplacer.Replace(s)
}

var mdReplacer = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "<", "&lt;",
	"`", "\\`", "*", `\*`, "[", `\[`, "]", `\]`, "~", `\~`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdCode renders s as a code span in a table cell or text: delimited by
// more backticks than its longest run (so nothing in it closes the
// span), '|' escaped (GitHub ends a table cell at '|' even inside a code
// span), and line breaks as spaces. An ordinary name comes out as
// `name`, as before.
func mdCode(s string) string {
	s = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdFence is a code fence for content: three backticks, or more than the
// longest run of backticks in it, so that no line of the content (guest
// output that prints ```) closes the block early.
func mdFence(content string) string {
	return strings.Repeat("`", max(3, longestRun(content, '`')+1))
}

// mdLines is s with every line ending CommonMark knows (\r\n, a lone \r,
// \n) made \n: a lone \r ends a line for the renderer, so a line
// indented by mdCodeBlock must not hide a second, unindented one.
func mdLines(s string) string {
	return strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(s)
}

// mdCodeBlock is content (lines ending in \n, see mdLines) as a fenced
// code block whose fence and every line are indented by indent: the
// indentation of the list item it belongs to. A line indented less than
// the item ends the item, and the block with it, so that the guest's
// text after it would render as Markdown (an image, a heading, a link)
// and the closing fence would open a block swallowing the rest.
func mdCodeBlock(content, indent string) string {
	fence := mdFence(content)
	var b strings.Builder
	b.WriteString(indent + fence + "\n")
	for _, line := range strings.Split(content, "\n") {
		b.WriteString(indent + line + "\n")
	}
	b.WriteString(indent + fence + "\n")
	return b.String()
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != c {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return longest
}
