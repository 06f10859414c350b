package loadkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxWholeFile bounds the files that loaders read whole before parsing
// (BranchMemEval's; its shipped set is about 2 MB, the largest generated
// sets tens of MB). A file larger than this is refused rather than read
// into memory: a device such as /dev/zero, or a FIFO, never ends.
const MaxWholeFile = 1 << 30

// ReadJSONFile reads the JSON document at path whole, refusing at once a
// file whose first byte after leading white space cannot start JSON (so
// /dev/zero or a binary file is refused at byte 0, as the streaming
// loaders refuse it, instead of being read until memory runs out), and a
// file longer than limit bytes.
func ReadJSONFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var lead []byte // kept, so that offsets and line numbers stay the file's
	for {
		c, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty file: expected a JSON document", path)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			if lead = append(lead, c); int64(len(lead)) > limit {
				return nil, fmt.Errorf("%s: more than %d bytes of white space: expected a JSON document", path, limit)
			}
			continue
		}
		if !startsJSON(c) {
			return nil, fmt.Errorf("%s: not JSON: byte %d is %s, which cannot start a JSON value", path, len(lead), byteName(c))
		}
		if err := br.UnreadByte(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		break
	}
	rest, err := io.ReadAll(io.LimitReader(br, limit-int64(len(lead))+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data := append(lead, rest...)
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a benchmark file this loader reads whole", path, limit)
	}
	return data, nil
}

// startsJSON reports whether c can be the first byte of a JSON value.
func startsJSON(c byte) bool {
	switch {
	case c == '{', c == '[', c == '"', c == '-', c >= '0' && c <= '9', c == 't', c == 'f', c == 'n':
		return true
	}
	return false
}

func byteName(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", string(c))
	}
	return fmt.Sprintf("0x%02x", c)
}
