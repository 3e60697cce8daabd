/**
 * History: the user's generations, newest first, loaded a page at a time as
 * the list scrolls. Queued and processing items refresh by themselves.
 */
import { useEffect, useRef, useState } from "react";
import { downloadImage, downloadToast } from "../../lib/download.ts";
import { Button } from "../../ui/button.tsx";
import { DownloadIcon, RotateIcon, SparklesIcon } from "../../ui/icons.tsx";
import { Spinner } from "../../ui/spinner.tsx";
import { toast } from "../../ui/toast.tsx";
import { ME_KEY, queryClient } from "../../api/client.ts";
import { type HistoryFilter, type HistoryItem, isPending, STATS_KEY, useHistory } from "./dashboard-api.ts";

export const STUDIO_LABELS: Record<HistoryItem["studio_type"], string> = {
  makeup: "Glam Studio",
  hair: "Hair Studio",
  barber: "Barber Shop",
};

const MAX_CHIPS = 3;

/** completed green, processing yellow, failed red, anything else grey. */
export function statusLook(status: string): { label: string; className: string } {
  switch (status) {
    case "completed":
      return { label: "completed", className: "bg-emerald-100 text-emerald-800 ring-emerald-200" };
    case "processing":
    case "queued":
      return { label: "processing", className: "bg-amber-100 text-amber-900 ring-amber-200" };
    case "failed":
      return { label: "failed", className: "bg-red-100 text-red-800 ring-red-200" };
    default:
      return { label: status, className: "bg-ink-100 text-ink-700 ring-ink-200" };
  }
}

/**
 * The history download's file name: styletwin-{studio_type}-{id}.png, a PNG whatever the result is stored
 * as (the server re-encodes a JPEG result when a .png is asked for).
 */
export function historyDownloadName(item: Pick<HistoryItem, "studio_type" | "id">): string {
  return `styletwin-${item.studio_type}-${item.id}.png`;
}

function Chips({ item }: { item: HistoryItem }) {
  const chips = item.chosen_options;
  if (chips.length === 0) return <p className="text-xs text-ink-500">Default look</p>;
  const more = chips.length - MAX_CHIPS;
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label="Options">
      {chips.slice(0, MAX_CHIPS).map((c) => (
        <li key={c.key} className="rounded-full bg-brand-50 px-2.5 py-0.5 text-xs font-medium text-brand-800">
          {c.label}
        </li>
      ))}
      {more > 0 && (
        <li className="rounded-full bg-ink-100 px-2.5 py-0.5 text-xs font-medium text-ink-700">
          +{more} more
        </li>
      )}
    </ul>
  );
}

function creditsText(item: HistoryItem): string {
  if (item.status === "failed") return "0 credits (refunded)";
  return `${item.credits_charged} credit${item.credits_charged === 1 ? "" : "s"}`;
}

function Item({ item, onOpen }: { item: HistoryItem; onOpen(item: HistoryItem): void }) {
  const look = statusLook(item.status);
  const angles = Object.keys(item.result_urls).length;
  const [busy, setBusy] = useState(false);

  async function download() {
    if (!item.result_url) return;
    setBusy(true);
    try {
      const name = historyDownloadName(item);
      const outcome = await downloadImage(item.result_url, name);
      if (outcome === "failed") {
        toast({
          title: "Download Failed",
          description: "Failed to download the image. Please try again.",
          variant: "destructive",
        });
      } else {
        // On a phone the image is shared or opened, not saved: the toast says which.
        const said = downloadToast(outcome, name);
        if (said) toast(said);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <li
      className="flex gap-4 rounded-2xl border border-ink-100 bg-white p-3 shadow-sm sm:p-4"
      data-testid="history-item"
      data-id={item.id}
      data-status={item.status}
    >
      <button
        type="button"
        className="relative aspect-[9/16] w-20 shrink-0 overflow-hidden rounded-xl bg-ink-100 sm:w-24"
        onClick={() => onOpen(item)}
        disabled={!item.result_url}
        aria-label={item.result_url ? `Open the ${STUDIO_LABELS[item.studio_type]} result` : "No result yet"}
      >
        {item.result_url
          ? <img src={item.result_url} alt="" loading="lazy" className="size-full object-cover" />
          : (
            <span className="grid size-full place-items-center text-ink-500">
              {isPending(item) ? <Spinner className="size-6" /> : <SparklesIcon className="size-6" />}
            </span>
          )}
        {item.view360 && angles > 1 && (
          <span className="absolute bottom-1 left-1 rounded-full bg-ink-900/80 px-1.5 py-0.5 text-[10px] font-bold text-white">
            360°
          </span>
        )}
      </button>
      <div className="flex min-w-0 flex-1 flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="font-semibold text-ink-900">{STUDIO_LABELS[item.studio_type]}</h3>
          <span
            className={`rounded-full px-2.5 py-0.5 text-xs font-semibold capitalize ring-1 ${look.className}`}
            data-testid="history-status"
          >
            {look.label}
          </span>
        </div>
        <p className="text-xs text-ink-500">
          <time dateTime={item.created_at}>{new Date(item.created_at).toLocaleString()}</time>
          {" · "}
          <span data-testid="history-credits">{creditsText(item)}</span>
        </p>
        <Chips item={item} />
        {item.status === "completed" && item.result_url && (
          <div className="mt-auto flex flex-wrap gap-2">
            <Button size="sm" variant="outline" onClick={() => onOpen(item)}>
              {item.view360 && angles > 1
                ? <RotateIcon className="size-4" />
                : <SparklesIcon className="size-4" />}
              {item.view360 && angles > 1 ? "360° View" : "View"}
            </Button>
            <Button size="sm" variant="outline" onClick={download} disabled={busy}>
              <DownloadIcon className="size-4" />
              Download
            </Button>
          </div>
        )}
      </div>
    </li>
  );
}

const FILTERS: { value: HistoryFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "completed", label: "Completed" },
  { value: "processing", label: "Processing" },
  { value: "failed", label: "Failed" },
];

function FilterBar({ value, onChange }: { value: HistoryFilter; onChange(v: HistoryFilter): void }) {
  return (
    <div role="group" aria-label="Show generations" className="mb-4 flex flex-wrap gap-2">
      {FILTERS.map((f) => (
        <button
          key={f.value}
          type="button"
          aria-pressed={value === f.value}
          onClick={() => onChange(f.value)}
          className={`h-8 rounded-full px-3 text-xs font-semibold ring-1 transition sm:h-9 sm:px-4 sm:text-sm ${
            value === f.value
              ? "bg-ink-900 text-white ring-ink-900"
              : "bg-white text-ink-700 ring-ink-200 hover:ring-ink-300"
          }`}
        >
          {f.label}
        </button>
      ))}
    </div>
  );
}

export function HistoryTab({ onOpen, onCreate }: { onOpen(item: HistoryItem): void; onCreate(): void }) {
  const [filter, setFilter] = useState<HistoryFilter>("all");
  return (
    <div>
      <FilterBar value={filter} onChange={setFilter} />
      <HistoryList filter={filter} onOpen={onOpen} onCreate={onCreate} />
    </div>
  );
}

function HistoryList(
  { filter, onOpen, onCreate }: { filter: HistoryFilter; onOpen(item: HistoryItem): void; onCreate(): void },
) {
  const history = useHistory(filter);
  const sentinel = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = history;
  const pendingCount = history.data?.pages.reduce((n, p) => n + p.items.filter(isPending).length, 0) ?? 0;
  const lastPending = useRef(pendingCount);

  // An item finished: the stats and the balance (a failed job is refunded) changed too.
  useEffect(() => {
    if (pendingCount < lastPending.current) {
      queryClient.invalidateQueries({ queryKey: STATS_KEY });
      queryClient.invalidateQueries({ queryKey: ME_KEY });
    }
    lastPending.current = pendingCount;
  }, [pendingCount]);

  // Infinite scroll: the next page loads when the end of the list comes into view.
  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) fetchNextPage();
    }, { rootMargin: "200px" });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (history.isPending) {
    return (
      <div className="grid place-items-center gap-3 py-16 text-brand-600" role="status">
        <Spinner className="size-8" />
        <p className="text-sm text-ink-500">Loading your generations...</p>
      </div>
    );
  }
  if (history.isError) {
    return (
      <div className="rounded-3xl border border-ink-100 bg-white p-8 text-center" role="alert">
        <p className="text-ink-700">Your history could not be loaded.</p>
        <Button className="mt-4" variant="outline" onClick={() => history.refetch()}>Try Again</Button>
      </div>
    );
  }
  const items = history.data.pages.flatMap((p) => p.items);
  if (items.length === 0 && filter !== "all") {
    return (
      <p className="rounded-3xl border border-dashed border-ink-200 bg-white p-8 text-center text-ink-600">
        No {filter} generations.
      </p>
    );
  }
  if (items.length === 0) {
    return (
      <div className="rounded-3xl border border-dashed border-ink-200 bg-white p-10 text-center">
        <SparklesIcon className="mx-auto size-10 text-brand-400" />
        <h2 className="mt-3 text-xl font-bold text-ink-900">No Generations Yet</h2>
        <p className="mt-1 text-sm text-ink-500">Your styled images will appear here.</p>
        <Button className="mt-5" onClick={onCreate}>Create Avatar</Button>
      </div>
    );
  }
  return (
    <div>
      {/* The items' titles are h3: the list needs its h2 for the outline (h1 straight to h3 skips a level). */}
      <h2 className="sr-only">Your generations</h2>
      <ul className="grid gap-3 lg:grid-cols-2" aria-label="Generation history">
        {items.map((item) => <Item key={item.id} item={item} onOpen={onOpen} />)}
      </ul>
      <div ref={sentinel} className="grid place-items-center py-6">
        {hasNextPage && (
          <Button
            variant="outline"
            onClick={() => fetchNextPage()}
            disabled={isFetchingNextPage}
          >
            {isFetchingNextPage ? <Spinner className="size-4" /> : null}
            {isFetchingNextPage ? "Loading..." : "Load More"}
          </Button>
        )}
      </div>
    </div>
  );
}
