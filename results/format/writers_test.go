package format

import (
	"io"
	"strings"
	"testing"
)

func TestWritersRefuseAFormatTheyDoNotHave(t *testing.T) {
	err := WriteCulprit(io.Discard, "pdf", nil)
	if err == nil || !strings.Contains(err.Error(), `no culprit report format "pdf"`) {
		t.Fatalf("WriteCulprit pdf: %v", err)
	}
	err = WriteNight(io.Discard, "pdf", nil)
	if err == nil || !strings.Contains(err.Error(), `no night format "pdf"`) {
		t.Fatalf("WriteNight pdf: %v", err)
	}
}

func TestEveryListedFormatHasAWriter(t *testing.T) {
	for _, f := range CulpritFormats {
		if culpritWriters[f] == nil {
			t.Errorf("culprit format %s has no writer", f)
		}
	}
	for _, f := range append([]NightFormat{NightTable}, NightFiles...) {
		if nightWriters[f] == nil {
			t.Errorf("night format %s has no writer", f)
		}
	}
}
