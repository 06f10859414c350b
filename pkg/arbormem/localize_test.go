package arbormem

import (
	"strings"
	"testing"
)

// TestChannelNames compares the channel names localize gives a candidate
// with the letters noted one channel at a time, in the order localize
// consults the channels (semantic, keyword, entity, topic), as Scored.From
// was spelt before the channels became bits.
func TestChannelNames(t *testing.T) {
	chans := []struct {
		bit    uint8
		letter string
	}{{chanSemantic, "s"}, {chanKeyword, "k"}, {chanEntity, "e"}, {chanTopic, "t"}}
	for set := range 16 {
		var from string
		for _, c := range chans {
			if uint8(set)&c.bit != 0 && !strings.Contains(from, c.letter) {
				from += c.letter
			}
		}
		if got := channelNames[set]; got != from {
			t.Errorf("channels %04b: got %q, want %q", set, got, from)
		}
	}
}
