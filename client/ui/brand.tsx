export function Brand({ compact = false }: { compact?: boolean }) {
  return (
    <span className="flex items-center gap-2">
      <img src="/favicon.svg" alt="" className="size-8 rounded-xl" />
      <span
        className={`text-lg font-extrabold tracking-tight text-ink-900 ${compact ? "max-sm:sr-only" : ""}`}
      >
        Style<span className="text-brand-600">Twin</span>
      </span>
    </span>
  );
}
