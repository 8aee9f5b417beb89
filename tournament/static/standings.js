"use strict";
// The page follows the event: reload when a round ends at any table.
new EventSource("api/events").addEventListener("round", () => location.reload());
