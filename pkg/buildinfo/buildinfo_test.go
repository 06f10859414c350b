package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromSettings(t *testing.T) {
	for _, tc := range []struct {
		in   []debug.BuildSetting
		want string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "abc"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}, "abc+dirty"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, ""},
	} {
		if got := fromSettings(tc.in); got != tc.want {
			t.Errorf("fromSettings(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
