package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// KindImageExcluded records that images of earlier user rows are left out of the context from
// now on, because a provider refused a request carrying them. The journal is
// append-only, so the user row is never changed: Turns, the page and exports read the
// exclusion from this row. Not sent to the model as a message of its own; the user message it
// concerns says instead that its image was left out.
const KindImageExcluded Kind = "image_excluded"

// ImageExcludedPayload names the images left out (each by its user row and blob hash), the
// provider's own words for why, and which provider and model refused them.
type ImageExcludedPayload struct {
	Images   []ExcludedImage `json:"images"`
	Reason   string          `json:"reason"`
	Provider string          `json:"provider,omitempty"`
	Model    string          `json:"model,omitempty"`
}

// ExcludedImage is one image of user row Seq, by its blob hash.
type ExcludedImage struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// Exclusions maps a user row's seq to the hashes of its images left out, with the reason.
type Exclusions map[int64]map[string]string

// ExclusionsOf reads the image_excluded rows of chunks.
func ExclusionsOf(chunks []Chunk) (Exclusions, error) {
	var ex Exclusions
	for _, c := range chunks {
		if c.Kind != KindImageExcluded {
			continue
		}
		var p ImageExcludedPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("messages: row %d: image_excluded payload: %w", c.Seq, err)
		}
		if ex == nil {
			ex = Exclusions{}
		}
		for _, im := range p.Images {
			if ex[im.Seq] == nil {
				ex[im.Seq] = map[string]string{}
			}
			ex[im.Seq][im.Hash] = p.Reason
		}
	}
	return ex, nil
}

// Apply marks the images of user row seq that are excluded (ImageRef.Excluded).
func (ex Exclusions) Apply(seq int64, p *UserPayload) {
	for i := range p.Images {
		if _, ok := ex[seq][p.Images[i].Hash]; ok {
			p.Images[i].Excluded = true
		}
	}
}

// ExcludedNote is what the model reads, after the person's text, for each image of a user
// row left out: that there was an image, and that it is not in the conversation.
func ExcludedNote(p UserPayload) string {
	var names []string
	for _, im := range p.Images {
		if im.Excluded {
			names = append(names, imageName(im))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "\n\n[loopdesk note: the person attached " + strings.Join(names, ", ") +
		" here; it is left out of this conversation because the provider refused it]"
}

func imageName(im ImageRef) string {
	if im.Name != "" {
		return "the image " + im.Name
	}
	return "an image"
}

// checkExclusion refuses an image_excluded row naming no image, or an image that is not one
// of its user row's: an exclusion never points at nothing.
func checkExclusion(ctx context.Context, tx execer, sessionID string, v any) error {
	p, ok := v.(*ImageExcludedPayload)
	if !ok {
		return nil
	}
	if len(p.Images) == 0 {
		return fmt.Errorf("%w: an image exclusion names no image", ErrInvalid)
	}
	for _, im := range p.Images {
		var kind string
		var raw []byte
		err := tx.QueryRowContext(ctx, `SELECT kind, payload FROM chunks WHERE session_id = ? AND seq = ?`, sessionID, im.Seq).Scan(&kind, &raw)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && Kind(kind) != KindUser) {
			return fmt.Errorf("%w: image exclusion names row %d, which is not a message of the person", ErrInvalid, im.Seq)
		}
		if err != nil {
			return err
		}
		var u UserPayload
		if err := json.Unmarshal(raw, &u); err != nil {
			return err
		}
		found := false
		for _, ref := range u.Images {
			found = found || ref.Hash == im.Hash
		}
		if !found {
			return fmt.Errorf("%w: row %d has no image %s", ErrInvalid, im.Seq, im.Hash)
		}
	}
	return nil
}

// SentImages are the images a request built from chunks carries, each by its user row, oldest
// first: those of user rows not compacted away and not excluded already. A provider's image
// refusal is about them.
func SentImages(chunks []Chunk) ([]ExcludedImage, error) {
	ex, err := ExclusionsOf(chunks)
	if err != nil {
		return nil, err
	}
	msgs, err := Turns(chunks) // what is sent: rows compacted away carry no image
	if err != nil {
		return nil, err
	}
	sent := map[string]bool{}
	for _, m := range msgs {
		for _, h := range m.ImageRefs {
			sent[h] = true
		}
	}
	var out []ExcludedImage
	for _, c := range chunks {
		if c.Kind != KindUser {
			continue
		}
		var p UserPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return nil, fmt.Errorf("read user row %d: %w", c.Seq, err)
		}
		ex.Apply(c.Seq, &p)
		for _, im := range p.Images {
			if !im.Excluded && sent[im.Hash] {
				out = append(out, ExcludedImage{Seq: c.Seq, Hash: im.Hash})
			}
		}
	}
	return out, nil
}
