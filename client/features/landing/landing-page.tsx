/** Landing page (home): hero and the Provide Photo(s) card. */
import { type DragEvent, type ReactNode, useCallback, useState } from "react";
import { usePhotoUpload } from "../../lib/use-photo-upload.ts";
import type { CurrentPhoto } from "../../api/types.ts";
import { Button } from "../../ui/button.tsx";
import { CameraIcon, SparklesIcon, UploadIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { CameraCapture, cameraSupported } from "./camera-capture.tsx";
import { PhotoFileInput } from "../../ui/photo-file-input.tsx";
import { CAMERA_FAILURE_TEXT, type CameraFailure } from "../../lib/camera-failure.ts";

export interface LandingPageProps {
  onUploaded(photo: CurrentPhoto): void;
  /** Shown above the hero (e.g. a generation still running). */
  notice?: ReactNode;
}

const STEPS = [
  {
    title: "Upload one photo",
    text: "A clear, front-facing portrait is all it takes.",
  },
  {
    title: "Style it",
    text: "Makeup, hair, barber and scene options with live colour swatches.",
  },
  {
    title: "Generate and download",
    text: "A 9:16 image, or a 360° set of front, right, left and back.",
  },
];

const STUDIOS = [
  { name: "Glam Studio", text: "Lips, eyes, base and blush" },
  { name: "Hair Studio", text: "Colour, length and texture" },
  { name: "Barber Shop", text: "Cuts, beards and tones" },
];

export default function LandingPage({ onUploaded, notice }: LandingPageProps) {
  const { busy, upload: handleFile, pick, input } = usePhotoUpload(onUploaded);
  const [cameraOpen, setCameraOpen] = useState(false);
  const [dragging, setDragging] = useState(false);

  const cameraToast = useCallback((why: CameraFailure) => {
    toast({ ...CAMERA_FAILURE_TEXT[why], variant: why === "unsupported" ? "default" : "destructive" });
  }, []);

  function useCamera() {
    if (cameraSupported()) {
      setCameraOpen(true);
      return;
    }
    // No camera API at all: still inside the tap, so the file picker may open right away.
    cameraToast("unsupported");
    pick();
  }

  function onDrop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    handleFile(e.dataTransfer.files?.[0]);
  }

  return (
    <main className="bg-studio min-h-[calc(100dvh-4rem)]">
      {notice}
      <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 pb-12 pt-8 sm:px-6 sm:pt-16 lg:grid-cols-[1.1fr_1fr] lg:gap-16 lg:pt-24">
        <section>
          <p className="inline-flex items-center gap-2 rounded-full bg-white/80 px-3 py-1 text-xs font-semibold uppercase tracking-wider text-brand-700 shadow-sm ring-1 ring-brand-100">
            <SparklesIcon className="size-3.5" /> AI styling studio
          </p>
          <h1 className="mt-5 text-4xl font-extrabold leading-[1.05] tracking-tight text-ink-900 sm:text-6xl">
            Create Your{" "}
            <span className="bg-gradient-to-r from-brand-500 to-fuchsia-600 bg-clip-text text-transparent">
              Digital Human
            </span>
          </h1>
          <p className="mt-5 max-w-xl text-lg text-ink-600 sm:text-xl">
            Build a consistent AI avatar from one photo and let it handle your content.
          </p>
          <ul className="mt-8 hidden max-w-xl gap-3 sm:grid sm:grid-cols-3">
            {STUDIOS.map((s) => (
              <li
                key={s.name}
                className="rounded-2xl bg-white/70 p-3.5 shadow-sm ring-1 ring-ink-100 backdrop-blur"
              >
                <p className="text-sm font-semibold text-ink-900">{s.name}</p>
                <p className="mt-0.5 text-xs text-ink-500">{s.text}</p>
              </li>
            ))}
          </ul>
        </section>

        <section
          aria-labelledby="provide-photos-title"
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={`rounded-[2rem] bg-white p-6 shadow-xl shadow-ink-900/5 ring-1 transition sm:p-8 ${
            dragging ? "ring-2 ring-brand-400" : "ring-ink-100"
          }`}
        >
          <div className="flex items-center gap-3">
            <span className="grid size-11 shrink-0 place-items-center rounded-2xl bg-brand-50 text-brand-600">
              <UploadIcon />
            </span>
            <div>
              <h2
                id="provide-photos-title"
                className="text-xl font-bold tracking-tight"
              >
                Provide Photo(s)
              </h2>
              <p className="text-sm text-ink-500">
                Up to 4 images. The first one becomes your avatar.
              </p>
            </div>
          </div>

          <div className="mt-6 grid place-items-center rounded-3xl border-2 border-dashed border-ink-200 bg-ink-50/60 px-4 py-6 text-center sm:py-10">
            {busy
              ? (
                <div
                  className="flex flex-col items-center gap-3 text-brand-600"
                  role="status"
                >
                  <Spinner className="size-8" />
                  <p className="text-sm font-medium text-ink-700">
                    Uploading your photo...
                  </p>
                </div>
              )
              : (
                <p className="max-w-xs text-sm text-ink-500">
                  A clear, front-facing portrait with one person works best. JPG, PNG or WebP up to 10MB.
                </p>
              )}
          </div>

          <div className="mt-6 grid gap-3 sm:grid-cols-2">
            <Button
              size="lg"
              onClick={pick}
              disabled={busy}
            >
              <UploadIcon className="size-5" /> Upload Photo(s)
            </Button>
            <Button
              size="lg"
              variant="outline"
              onClick={useCamera}
              disabled={busy}
            >
              <CameraIcon className="size-5" /> Use Camera
            </Button>
          </div>
          <PhotoFileInput {...input} label="Choose photos to upload" testId="landing-file-input" />
        </section>
      </div>
      <section
        aria-label="How it works"
        className="mx-auto max-w-6xl px-4 pb-20 sm:px-6"
      >
        <ol className="grid gap-4 sm:grid-cols-3">
          {STEPS.map((step, i) => (
            <li
              key={step.title}
              className="flex gap-4 rounded-3xl bg-white/70 p-5 ring-1 ring-ink-100 backdrop-blur"
            >
              <span className="grid size-9 shrink-0 place-items-center rounded-full bg-ink-900 text-sm font-bold text-white">
                {i + 1}
              </span>
              <div>
                <p className="font-semibold text-ink-900">{step.title}</p>
                <p className="mt-1 text-sm text-ink-500">{step.text}</p>
              </div>
            </li>
          ))}
        </ol>
      </section>
      <CameraCapture
        open={cameraOpen}
        onClose={() => setCameraOpen(false)}
        // Refused asynchronously: the tap is over, so the dialog offers Upload Photo(s) instead.
        onUnavailable={cameraToast}
        onPickFile={pick}
        onCapture={(file) => {
          setCameraOpen(false);
          handleFile(file);
        }}
      />
    </main>
  );
}
