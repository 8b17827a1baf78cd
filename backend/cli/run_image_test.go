package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func TestRunImageStoresEachFileOnThePromptRow(t *testing.T) {
	e := runNewEnv(t)
	dir := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 12, 8))); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	os.WriteFile(shot, b.Bytes(), 0o600)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("plain words"), 0o600)
	ctx := context.Background()
	args := []string{"--db", e.db, "--workspace", e.ws, "--model", "fake-model", "--base-url", e.srv.URL()}

	var out, errb bytes.Buffer
	if code := Run(ctx, append(args, "--image", shot, "--image", notes, "what is this?"), strings.NewReader(""), &out, &errb); code != runExitOther ||
		!strings.Contains(errb.String(), "notes.txt") {
		t.Fatalf("a text file as --image: exit %d, %s", code, errb.String())
	}
	e.srv.Enqueue(fakeai.Text("A small grey image."))
	errb.Reset()
	if code := Run(ctx, append(args, "--image", shot, "--image", shot, "what is this?"), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	db, err := store.Open(ctx, e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, _ := db.ListSessions(ctx)
	if len(list) != 1 {
		t.Fatalf("%d sessions; the refused run must not have made one", len(list))
	}
	rows, _ := db.Chunks(ctx, list[0].ID)
	var u store.UserPayload
	json.Unmarshal(rows[0].Payload, &u)
	if u.Text != "what is this?" || len(u.Images) != 2 || u.Images[0].Name != "shot.png" || u.Images[0].Width != 12 || u.Images[0].Hash != u.Images[1].Hash {
		t.Fatalf("prompt row = %+v", u)
	}
	if blob, err := db.GetBlob(ctx, u.Images[0].Hash); err != nil || !bytes.Equal(blob.Data, b.Bytes()) {
		t.Fatalf("the stored image is not the file: %v", err)
	}
}

func TestMarkdownExportWritesImagesNextToIt(t *testing.T) {
	e := runNewEnv(t)
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 5, 5)))
	shot := filepath.Join(t.TempDir(), "shot.png")
	os.WriteFile(shot, b.Bytes(), 0o600)
	e.srv.Enqueue(fakeai.Text("A tiny square."))
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := Run(ctx, []string{"--db", e.db, "--workspace", e.ws, "--model", "fake-model", "--base-url", e.srv.URL(), "--image", shot, "look"},
		strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("run: %d %s", code, errb.String())
	}
	db, _ := store.Open(ctx, e.db)
	list, _ := db.ListSessions(ctx)
	db.Close()
	dir := t.TempDir()
	md := filepath.Join(dir, "look.md")
	export := func(args ...string) (int, string, string) {
		var o, eb bytes.Buffer
		code := Sessions(ctx, append([]string{"export", "--format", "markdown", "--db", e.db, list[0].ID}, args...), &o, &eb)
		return code, o.String(), eb.String()
	}
	if code, _, stderr := export("-o", md); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	text, _ := os.ReadFile(md)
	files, _ := filepath.Glob(filepath.Join(dir, "look_images", "*.png"))
	if len(files) != 1 || !strings.Contains(string(text), "![shot.png](look_images/"+filepath.Base(files[0])+")") {
		t.Fatalf("images %v; transcript:\n%s", files, text)
	}
	if got, _ := os.ReadFile(files[0]); !bytes.Equal(got, b.Bytes()) {
		t.Fatal("the image beside the transcript is not the original")
	}
	if code, stdout, _ := export(); code != 0 || !strings.Contains(stdout, "- Image: shot.png, 5x5, sha256 ") {
		t.Fatalf("to stdout the image is named: %d\n%s", code, stdout)
	}
}
