// flowjob board: pages it serves open with TensorBoard's "Reload data" setting on, so the open
// page follows training. TensorBoard 2.21 keeps its settings as JSON in localStorage under
// "_tb_global_settings" and reads them once at start-up; this script runs before the app.
// The reload period stays TensorBoard's own (30 s, the shortest its settings accept).
(() => {
  const key = "_tb_global_settings";
  try {
    let settings = {};
    try {
      settings = JSON.parse(window.localStorage.getItem(key) || "{}") || {};
    } catch (err) {
      settings = {};  // unreadable: TensorBoard would ignore it too
    }
    settings.autoReload = true;
    window.localStorage.setItem(key, JSON.stringify(settings));
  } catch (err) {
    // localStorage disabled (private mode, policy): the page works, without auto-reload.
  }
})();
