export function Brand({ compact = false }: { compact?: boolean }) {
  // The mark never shrinks (beside the account buttons on a 320 px phone it was squeezed to 7 px); under
  // 360 px the wordmark always gives way to the buttons (beside Login and Sign Up it was cut).
  return (
    <span className="flex items-center gap-2">
      <img src="/favicon.svg" alt="" className="size-8 shrink-0 rounded-xl" />
      <span
        className={`text-lg font-extrabold tracking-tight text-ink-900 ${
          compact ? "max-sm:sr-only" : "max-[360px]:sr-only"
        }`}
      >
        Style<span className="text-brand-600">Twin</span>
      </span>
    </span>
  );
}
