import ClawTalkSupport

extension TranscriptDelivery {
    /// The outbox of `key`, expired entries dropped; empty (logged) when the file is unreadable.
    func loadOutbox(_ key: String) -> [QueuedTranscript] {
        do {
            let loaded = try TranscriptOutbox(store: store, gatewayKey: key).load()
            if !loaded.isEmpty { logger.info("outbox.loaded", ["count": .int(loaded.count)]) }
            return loaded
        } catch {
            logger.error("outbox.unreadable", ["error": .string("\(error)")])
            return []
        }
    }

    /// Writes the outbox file (removed when empty); failures are logged, the memory copy stays.
    func saveOutbox() {
        guard let gatewayKey else { return }
        do {
            try TranscriptOutbox(store: store, gatewayKey: gatewayKey).save(outbox.entries)
        } catch {
            logger.error("outbox.write_failed", ["error": .string("\(error)")])
        }
    }

    /// Appends `entry`; beyond the capacity the oldest transcript is dropped with a warning.
    func enqueue(_ entry: QueuedTranscript) {
        let (expired, full) = outbox.append(entry, nowMs: now())
        logExpired(expired)
        for dropped in full {
            logger.warning(
                "outbox.full.dropped_oldest",
                [
                    "id": .string(dropped.id), "capacity": .int(outbox.capacity),
                    "text": .string(dropped.message),
                ])
        }
        saveOutbox()
        logger.info("outbox.queued", ["id": .string(entry.id), "count": .int(outbox.count)])
    }

    /// Drops transcripts older than ``Configuration/outboxMaxAge``.
    func dropExpired() {
        let expired = outbox.removeExpired(nowMs: now())
        guard !expired.isEmpty else { return }
        logExpired(expired)
        saveOutbox()
    }

    private func logExpired(_ expired: [QueuedTranscript]) {
        for entry in expired {
            logger.warning("outbox.expired", ["id": .string(entry.id), "text": .string(entry.message)])
        }
    }

    /// Sends queued transcripts in order until one must wait; true when the outbox is empty.
    /// Only the newest one's reply is tracked (`trackLast`), and only if it is recent. The
    /// caller holds the send lane.
    func drainOutbox(trackLast: Bool) async -> Bool {
        dropExpired()
        while let head = outbox.head {
            let nowMs = now()
            let age = nowMs - head.queuedAtMs
            let outcome = await send(head, trackReply: outbox.tracksReplyOfHead(trackLast: trackLast, nowMs: nowMs))
            // Re-check after the await: a detach empties the outbox.
            guard outbox.head?.id == head.id else { return outbox.isEmpty }
            switch outcome {
            case .sent(let route):
                outbox.removeHead()
                saveOutbox()
                logger.info(
                    "outbox.sent", ["id": .string(head.id), "route": .string(route.rawValue), "ageMs": .int(Int(age))])
            case .dropped(let reason):
                outbox.removeHead()
                saveOutbox()
                logger.error("outbox.dropped", ["id": .string(head.id), "reason": .string(reason)])
            case .retry(let reason):
                logger.info("outbox.waiting", ["id": .string(head.id), "reason": .string(reason)])
                return false
            }
        }
        return true
    }

    /// Starts the flush loop unless it runs (then it makes one more pass).
    func kickFlush() {
        guard !outbox.isEmpty else { return }
        guard flushTask == nil else {
            flushAgain = true
            return
        }
        flushTask = Task { await self.flushLoop() }
    }

    /// Drains the outbox while a route is connected, backing off from
    /// ``Configuration/retryInitial`` to ``Configuration/retryMaximum`` between failed passes.
    private func flushLoop() async {
        var delay = configuration.retryInitial
        while !Task.isCancelled {
            flushAgain = false
            guard !outbox.isEmpty, await hasConnectedRoute else { break }
            let drained = await lane.run { await self.drainOutbox(trackLast: true) }
            if drained { break }
            logger.info("outbox.retry", ["delayMs": .int(Int(delay.wholeMilliseconds)), "count": .int(outbox.count)])
            do {
                try await clock.sleep(for: delay)
            } catch {
                break
            }
            delay = min(delay * 2, configuration.retryMaximum)
        }
        flushTask = nil
        if flushAgain, !Task.isCancelled {
            flushAgain = false
            kickFlush()
        }
    }
}
