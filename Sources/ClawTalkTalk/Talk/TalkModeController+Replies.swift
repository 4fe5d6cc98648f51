extension TalkModeController {
    /// Follows the reply speaker (phase `speaking` and back) and the tracker's segments (the
    /// echo guard's text) until the calling task is cancelled.
    public func follow(speaker: ReplySpeaker, tracker: ReplyTracker) async {
        let events = await speaker.events()
        let updates = await tracker.updates()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events { await self.speakerEvent(event) }
            }
            group.addTask {
                for await update in updates {
                    if case .segment(_, _, let text, _) = update { await self.apply(.replySegment(text)) }
                }
            }
        }
    }

    private func speakerEvent(_ event: ReplySpeaker.Event) {
        switch event {
        case .speaking: apply(.replyStarted)
        case .spoke, .failed: apply(.replyFinished)
        }
    }
}
