package rules

import "github.com/arbor-eval/arbor/pkg/dialog"

// inter is a two-turn interaction of the user and the assistant.
func inter(id, user, asst string) dialog.Interaction {
	return dialog.Interaction{ID: id, Turns: []dialog.Turn{{Role: dialog.RoleUser, Content: user}, {Role: dialog.RoleAssistant, Content: asst}}}
}
