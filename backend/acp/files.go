package acp

import (
	"context"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/checkpoint"
)

// diffs turns what a call changed into tool_call_update content: one diff per text file, from
// the checkpoint's before and after states, after the call's text result.
func (t *turn) diffs(p checkpoint.FilesChangedPayload) (sdk.SessionUpdate, bool) {
	rec := t.a.cfg.Stack.Checkpoints
	if rec == nil {
		return sdk.SessionUpdate{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	changes, err := changesAt(ctx, rec, t.s.id, p.RowSeq)
	if err != nil {
		t.a.log.Warn("no diff for a call's changes", "session", t.s.id, "call", p.CallID, "err", err)
		return sdk.SessionUpdate{}, false
	}
	content, locs := diffContent(ctx, rec, t.s.workspace, changes)
	if len(content) == 0 {
		return sdk.SessionUpdate{}, false
	}
	c := t.call(p.CallID)
	c.content = append(c.content, content...)
	c.locations = mergeLocations(c.locations, locs)
	return t.update(p.CallID, sdk.WithUpdateContent(c.content), sdk.WithUpdateLocations(c.locations)), true
}

// changesAt lists what the row seq recorded, by path.
func changesAt(ctx context.Context, rec *checkpoint.Recorder, sessionID string, seq int64) ([]checkpoint.Change, error) {
	all, err := rec.Changes(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var out []checkpoint.Change
	for _, c := range all {
		if c.Seq == seq {
			out = append(out, c)
		}
	}
	return out, nil
}

// diffContent is a diff per changed text file (a created file has no old text, a deleted one
// an empty new text) and the location of every changed path. Binary files, folders, links
// and files whose content was not kept get only their location.
func diffContent(ctx context.Context, rec *checkpoint.Recorder, workspace string, changes []checkpoint.Change) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var content []sdk.ToolCallContent
	var locs []sdk.ToolCallLocation
	for _, ch := range changes {
		path := absPath(workspace, ch.Path)
		locs = append(locs, sdk.ToolCallLocation{Path: path})
		if ch.Change == checkpoint.ModeOnly {
			continue
		}
		oldText, oldOK := text(ctx, rec, ch.Before)
		newText, newOK := text(ctx, rec, ch.After)
		if (ch.Before != nil && !oldOK) || (ch.After != nil && !newOK) || (ch.Before == nil && ch.After == nil) {
			continue
		}
		if ch.Before == nil {
			content = append(content, sdk.ToolDiffContent(path, newText))
		} else {
			content = append(content, sdk.ToolDiffContent(path, newText, oldText))
		}
	}
	return content, locs
}

// text is a file state's content when it is a stored text file.
func text(ctx context.Context, rec *checkpoint.Recorder, e *checkpoint.Entry) (string, bool) {
	if e == nil || e.Kind != checkpoint.KindFile {
		return "", false
	}
	b, err := rec.Content(ctx, e)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

func mergeLocations(have, add []sdk.ToolCallLocation) []sdk.ToolCallLocation {
	seen := map[string]bool{}
	for _, l := range have {
		seen[l.Path] = true
	}
	for _, l := range add {
		if !seen[l.Path] {
			seen[l.Path] = true
			have = append(have, l)
		}
	}
	return have
}
