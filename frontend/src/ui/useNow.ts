import { useEffect, useState } from "react";

/**
 * The time now, in milliseconds, renewed every `everyMs`: what "5 min ago" counts from.
 * It is 0 until the first effect, which times read as "just now".
 */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(0);
  useEffect(() => {
    setNow(Date.now());
    const timer = window.setInterval(() => {
      setNow(Date.now());
    }, everyMs);
    return () => {
      window.clearInterval(timer);
    };
  }, [everyMs]);
  return now;
}
