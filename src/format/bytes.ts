/** `1.2 GB`, `3 GB`, `-30 MB`, `0 B`: decimal units, one decimal below 10. */
export function formatBytes(bytes: number): string {
  const sign = bytes < 0 ? "-" : "";
  let value = Math.abs(bytes);
  for (const unit of ["B", "KB", "MB", "GB", "TB"]) {
    if (value < 1000 || unit === "TB") {
      return `${sign}${value < 10 && unit !== "B" ? Number(value.toFixed(1)) : Math.round(value)} ${unit}`;
    }
    value /= 1000;
  }
  return `${bytes} B`;
}
