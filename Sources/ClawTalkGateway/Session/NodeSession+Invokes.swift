import ClawTalkProtocol
import ClawTalkSupport

extension NodeSession {
    /// `node.invoke.request`: admit through the router, then answer or run (protocol.md §10.2).
    func receiveInvoke(_ frame: EventFrame, epoch: Int) {
        let request: NodeInvokeRequest
        do {
            request = try NodeInvokeRequest(json: frame.payload)
        } catch {
            logger.error("invoke.request.malformed", ["error": .string("\(error)")])
            return
        }
        guard request.nodeId.isEmpty || request.nodeId == nodeId else {
            logger.warning("invoke.foreign_node", ["id": .string(request.id), "nodeId": .string(request.nodeId)])
            return
        }
        let supported = declaredCommands.contains(request.command) && handlers[request.command] != nil
        switch router.admit(request, epoch: epoch, supported: supported, now: now()) {
        case .reply(let result):
            logger.info(
                "invoke.answered",
                ["id": .string(request.id), "command": .string(request.command), "ok": .bool(result.ok)])
            deliver([InvokeRouter.Delivery(result: result, epoch: epoch)])
        case .attached:
            logger.debug("invoke.attached", ["id": .string(request.id)])
        case .run(let ticket):
            start(ticket)
        }
    }

    /// `node.invoke.cancel {invokeId, nodeId}` (protocol.md §10.4).
    func receiveCancel(_ frame: EventFrame) {
        guard let cancel = try? NodeInvokeCancel(json: frame.payload) else {
            logger.warning("invoke.cancel.malformed")
            return
        }
        guard cancel.nodeId.isEmpty || cancel.nodeId == nodeId else {
            logger.warning("invoke.foreign_node", ["id": .string(cancel.invokeId), "nodeId": .string(cancel.nodeId)])
            return
        }
        if router.cancel(cancel.invokeId, now: now()) {
            invokes[cancel.invokeId]?.work.cancel()
            logger.info("invoke.cancelled", ["id": .string(cancel.invokeId)])
        } else {
            logger.debug("invoke.cancel.early", ["id": .string(cancel.invokeId)])
        }
    }

    /// Runs the handler in its own task with a local deadline.
    private func start(_ ticket: InvokeRouter.Ticket) {
        let id = ticket.request.id
        guard let handler = handlers[ticket.request.command] else { return }
        let context = InvokeContext(
            request: ticket.request, params: ticket.params, epoch: ticket.epoch, timeout: ticket.timeout)
        logger.info("invoke.started", ["id": .string(id), "command": .string(ticket.request.command)])
        let work = Task.detached { [self] in
            let outcome: InvokeOutcome
            do {
                outcome = .success(payloadJSON: try await handler(context))
            } catch {
                outcome = .failure(InvokeRouter.wireError(for: error))
            }
            await self.finish(id, outcome: outcome, cancelHandler: false)
        }
        let clock = clock
        let timer = Task.detached { [self] in
            do {
                try await clock.sleep(for: ticket.timeout)
            } catch {
                return
            }
            await self.finish(id, outcome: .failure(.timedOut), cancelHandler: true)
        }
        invokes[id] = InvokeTasks(work: work, timer: timer)
        if ticket.cancelledEarly { work.cancel() }
    }

    /// The first of handler, timeout or nothing else wins; later calls are ignored.
    private func finish(_ id: String, outcome: InvokeOutcome, cancelHandler: Bool) {
        guard let tasks = invokes.removeValue(forKey: id) else { return }
        tasks.timer.cancel()
        if cancelHandler { tasks.work.cancel() }
        if case .failure(let error) = outcome, error == .timedOut {
            logger.warning("invoke.timed_out", ["id": .string(id)])
        }
        deliver(router.complete(id, with: outcome, now: now()))
    }

    /// Sends results on the socket their request came on; drops them if it changed (protocol.md §10.2.7).
    func deliver(_ deliveries: [InvokeRouter.Delivery]) {
        guard !deliveries.isEmpty else { return }
        let connection = connection
        let logger = logger
        children.spawn {
            for delivery in deliveries {
                do {
                    let params = try WireJSON(encoding: delivery.result)
                    _ = try await connection.request(
                        method: NodeInvokeResult.method, params: params, timeout: nil, epoch: delivery.epoch)
                } catch GatewayError.staleEpoch, GatewayError.notConnected, GatewayError.stopped {
                    logger.notice(
                        "invoke.result.dropped", ["id": .string(delivery.result.id), "epoch": .int(delivery.epoch)])
                } catch {
                    logger.warning(
                        "invoke.result.failed", ["id": .string(delivery.result.id), "error": .string("\(error)")])
                }
            }
        }
    }
}
