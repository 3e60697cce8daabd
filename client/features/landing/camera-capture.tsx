/**
 * Use Camera: live preview with getUserMedia, capture, retake, use. When the
 * camera is refused or missing, the caller shows a toast saying what happened and the
 * dialog offers "Upload Photo(s)": getUserMedia fails asynchronously, after
 * the tap, and browsers only open a file picker inside a fresh user gesture.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { Button } from "../../ui/button.tsx";
import { Modal } from "../../ui/dialog.tsx";
import { CameraIcon, RotateIcon, UploadIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { CAMERA_FAILURE_TEXT, type CameraFailure, cameraFailureKind } from "../../lib/camera-failure.ts";

export function cameraSupported(): boolean {
  return typeof navigator !== "undefined" &&
    typeof navigator.mediaDevices?.getUserMedia === "function" &&
    globalThis.isSecureContext !== false;
}

export interface CameraCaptureProps {
  open: boolean;
  onClose(): void;
  /** Camera refused or missing (the dialog then shows its Upload Photo(s) fallback). */
  onUnavailable(why: CameraFailure): void;
  /** The fallback button: open the file picker (runs inside the user's click). */
  onPickFile(): void;
  onCapture(file: File): void;
}

export function CameraCapture(
  { open, onClose, onUnavailable, onPickFile, onCapture }: CameraCaptureProps,
) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const streamRef = useRef<MediaStream | null>(null);
  const [ready, setReady] = useState(false);
  const [shot, setShot] = useState<{ blob: Blob; url: string } | null>(null);
  const [failed, setFailed] = useState<CameraFailure | null>(null);

  const stop = useCallback(() => {
    streamRef.current?.getTracks().forEach((t) => t.stop());
    streamRef.current = null;
    setReady(false);
  }, []);

  const start = useCallback(async () => {
    setFailed(null);
    try {
      const stream = await navigator.mediaDevices.getUserMedia({
        video: {
          facingMode: "user",
          width: { ideal: 1280 },
          height: { ideal: 1280 },
        },
        audio: false,
      });
      streamRef.current = stream;
      if (videoRef.current) {
        videoRef.current.srcObject = stream;
        await videoRef.current.play().catch(() => {});
      }
      setReady(true);
    } catch (err) {
      stop();
      const why = cameraFailureKind(err);
      setFailed(why);
      onUnavailable(why);
    }
  }, [onUnavailable, stop]);

  useEffect(() => {
    if (!open) return;
    const t = setTimeout(start, 0);
    return () => {
      clearTimeout(t);
      stop();
    };
  }, [open, start, stop]);

  useEffect(() => () => {
    if (shot) URL.revokeObjectURL(shot.url);
  }, [shot]);

  function capture() {
    const video = videoRef.current;
    if (!video || !video.videoWidth) return;
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    const ctx = canvas.getContext("2d");
    if (!ctx) return;
    // Mirror back to how the person sees themselves in the preview.
    ctx.translate(canvas.width, 0);
    ctx.scale(-1, 1);
    ctx.drawImage(video, 0, 0);
    canvas.toBlob(
      (blob) => {
        if (blob) setShot({ blob, url: URL.createObjectURL(blob) });
      },
      "image/jpeg",
      0.92,
    );
  }

  function retake() {
    setShot(null);
    if (!streamRef.current) start();
  }

  function use() {
    if (!shot) return;
    const file = new File([shot.blob], `camera-${Date.now()}.jpg`, {
      type: "image/jpeg",
    });
    setShot(null);
    onCapture(file);
  }

  return (
    <Modal
      open={open}
      onOpenChange={(o) => {
        if (!o) {
          setShot(null);
          onClose();
        }
      }}
      title="Take a Photo"
      description="Face the camera in good light, with only you in the frame."
      width="max-w-lg"
    >
      <div className="relative mt-5 aspect-square overflow-hidden rounded-2xl bg-ink-900">
        <video
          ref={videoRef}
          playsInline
          muted
          aria-label="Camera preview"
          className={`size-full -scale-x-100 object-cover ${shot ? "hidden" : ""}`}
        />
        {shot && (
          <img
            src={shot.url}
            alt="Captured photo"
            className="size-full object-cover"
          />
        )}
        {!ready && !shot && !failed && (
          <div className="absolute inset-0 grid place-items-center text-white/80">
            <Spinner className="size-8" />
          </div>
        )}
        {failed && (
          <div
            role="alert"
            className="absolute inset-0 grid place-items-center p-6 text-center text-white"
          >
            <div>
              <CameraIcon className="mx-auto size-8 text-white/70" />
              <p className="mt-3 font-semibold">{CAMERA_FAILURE_TEXT[failed].title}</p>
              <p className="mt-1 text-sm text-white/75">{CAMERA_FAILURE_TEXT[failed].description}</p>
            </div>
          </div>
        )}
      </div>
      <div className="mt-5 flex flex-wrap justify-end gap-3">
        {failed
          ? (
            <Button
              onClick={() => {
                onClose();
                onPickFile();
              }}
            >
              <UploadIcon className="size-4" /> Upload Photo(s)
            </Button>
          )
          : shot
          ? (
            <>
              <Button variant="outline" onClick={retake}>
                <RotateIcon className="size-4" /> Retake
              </Button>
              <Button onClick={use}>Use Photo</Button>
            </>
          )
          : (
            <Button onClick={capture} disabled={!ready}>
              <CameraIcon className="size-4" /> Capture
            </Button>
          )}
      </div>
    </Modal>
  );
}
