package desktop_test

import (
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/desktop"
)

// What the window says and sends follows the open session's own model and the vision
// setting: a session whose header chose a text-only model gets no image (and the page is told
// so) while the saved model sees images; Settings → Images "on" for that model sends them.
func TestTheSessionsModelAndTheVisionSettingDecideWhatIsSent(t *testing.T) {
	srv := startFake(t)
	app := newTestApp(t, srv.URL())
	s, _ := app.NewSession("")
	if _, err := app.SetSessionModel(s.ID, "default", "deepseek-chat"); err != nil {
		t.Fatal(err)
	}
	if sees, err := app.SeesImages(); err != nil || !sees {
		t.Fatalf("the saved fake-model: %v, %v", sees, err)
	}
	if sees, err := app.SessionSeesImages(s.ID); err != nil || sees {
		t.Fatalf("the session's deepseek-chat: %v, %v", sees, err)
	}
	send := func() string {
		runID, err := app.SendWithImages(s.ID, "look", []desktop.ImageInput{{Name: "a.png", Data: pngBase64(t, 4, 4)}})
		if err != nil {
			t.Fatal(err)
		}
		app.rec.runFinished(t, runID)
		reqs := srv.Requests()
		return string(reqs[len(reqs)-1].Body)
	}
	if body := send(); strings.Contains(body, "image_url") {
		t.Fatal("a text-only model was sent the image")
	}
	set, err := app.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.SaveSettings(desktop.SettingsInput{BaseURL: set.BaseURL, Model: set.Model,
		Vision: []desktop.ModelVision{{Provider: "default", Model: "deepseek-chat", Vision: "on"}}}); err != nil {
		t.Fatal(err)
	}
	if sees, _ := app.SessionSeesImages(s.ID); !sees {
		t.Fatal("vision on: the session should see images")
	}
	if body := send(); strings.Count(body, `"type":"image_url"`) != 2 {
		t.Fatalf("vision on: both images should be sent: %.300s", body)
	}
}
