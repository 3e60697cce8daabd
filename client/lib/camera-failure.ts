/**
 * What went wrong when the camera could not be opened, in the user's terms (pure). getUserMedia
 * rejects with a DOMException whose name says why: the permission was refused, there is no camera,
 * or another app holds it. Every message ends by offering the file picker.
 */
import type { ToastText } from "./toast-text.ts";

export type CameraFailure = "refused" | "no-camera" | "busy" | "unsupported";

export function cameraFailureKind(err: unknown): CameraFailure {
  const name = (err as { name?: unknown } | null)?.name;
  switch (name) {
    case "NotAllowedError":
    case "SecurityError":
    case "PermissionDeniedError":
      return "refused";
    case "NotFoundError":
    case "DevicesNotFoundError":
    case "OverconstrainedError":
      return "no-camera";
    case "NotReadableError":
    case "TrackStartError":
    case "AbortError":
      return "busy";
    default:
      return "unsupported";
  }
}

export const CAMERA_FAILURE_TEXT: Record<CameraFailure, ToastText> = {
  refused: {
    title: "Camera Access Refused",
    description:
      "Camera permission was refused for this site. Allow it in your browser's site settings, or choose a photo instead.",
  },
  "no-camera": {
    title: "No Camera Found",
    description: "This device has no camera the browser can use. Choose a photo instead.",
  },
  busy: {
    title: "Camera In Use",
    description: "Another app is using the camera. Close it and try again, or choose a photo instead.",
  },
  unsupported: {
    title: "Camera Not Available",
    description: "This browser cannot open the camera here. Choose a photo instead.",
  },
};
